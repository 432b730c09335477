"""The model's constraints and indexes: made whole with only the commands a database lacks."""

from lineage import model
from lineage.load.writer import ensure_schema


def test_the_schema_is_made_whole_with_only_the_commands_it_lacks(lin):
    driver, database = lin.graph.driver, lin.graph.database
    ensure_schema(driver, database)
    assert ensure_schema(driver, database) == []  # whole: no schema command sent
    driver.execute_query("DROP INDEX host_name", database_=database)
    try:
        assert ensure_schema(driver, database) == ["host_name"]
    finally:
        ensure_schema(driver, database)
    held = {r["name"] for r in driver.execute_query("SHOW INDEXES YIELD name",
                                                    database_=database).records}
    wanted = model.schema()
    assert {name for name, _, _ in wanted.unique + wanted.ranges} <= held
