"""The Pegasus part of the malformed-input corpus, written in the test run.

Most inputs are the real ``process_wf_failure.static.bp`` (14 lines) with one fault put in;
:func:`write_corpus` writes each input and its ``NAME.expect.json`` (what must happen to it,
see tests/malformed/README.md) into a folder of the test run.

>>> import tempfile; from tests.corpus import SAMPLES
>>> out = Path(tempfile.mkdtemp())
>>> len(write_corpus(SAMPLES, out)) >= 20 if SAMPLES.is_dir() else True
True
"""
import json
from pathlib import Path

BASE_NODES = {"Job": 5, "Task": 1, "Workflow": 1}
BP_SYNTAX = "key=value pairs (NetLogger BP)"
XWF = "f84f05fc-a8d0-42b5-bac5-52d6f41a77e3"
CUT_SHORT = ("a last line ending in a newline (the stream looks cut short: a file still being "
             "written?)")


def ln(text: str) -> bytes:
    return (text + "\n").encode()


def skipped(**counts):
    return {f"expected {k}": v for k, v in counts.items()}


def write_corpus(samples: Path, out: Path) -> list[Path]:
    """Write every Pegasus input of the corpus and its expectation into ``out``; the inputs."""
    out.mkdir(parents=True, exist_ok=True)
    B = (samples / "pegasus" / "process_wf_failure.static.bp").read_bytes().splitlines(keepends=True)
    assert len(B) == 14
    written = []

    def write(name, data: bytes, description, strict, lenient=None, detected=True):
        (out / name).write_bytes(data)
        spec = {"description": description, "format": "pegasus-bp", "detected": detected,
                "strict": strict}
        if lenient is not None:
            spec["lenient"] = lenient
        (out / (name + ".expect.json")).write_text(
            json.dumps(spec, indent=2, ensure_ascii=False) + "\n")
        written.append(out / name)

    line9 = B[8].decode()
    cut = line9.index('submit_file="00/') + len('submit_file="00/')
    write("truncated-in-quoted-value.bp", b"".join(B[:8]) + line9[:cut].encode(),
          "the file ends inside a quoted value of line 9 (a copy cut short)",
          {"error": "ParseError", "where": 9, "expected": CUT_SHORT},
          {"skipped": {"expected " + CUT_SHORT: 1}, "nodes": {"Job": 4, "Task": 1, "Workflow": 1}})

    write("truncated-mid-event.bp",
          b"".join(B[:13]) + f'ts=1970-02-06T23:45:30.410624Z event=job.edge xwf.id={XWF} parent.job.id="create_dir_process_0_local"'.encode(),
          "the last event lost its tail: a job.edge without child.job.id and without a newline",
          {"error": "ParseError", "where": 14, "expected": CUT_SHORT},
          {"skipped": {"expected " + CUT_SHORT: 1}, "nodes": BASE_NODES})

    write("broken-quoting.bp",
          b"".join(B[:5])
          + ln(f'ts=1970-02-06T23:45:30.5Z event=job.info xwf.id={XWF} job.id="q1" argv=-a "b c"')
          + ln(f'ts=1970-02-06T23:45:30.5Z event=job.info xwf.id={XWF} job.id="q2" argv="ends with a backslash-quote\\"')
          + ln(f'ts=1970-02-06T23:45:30.5Z event=job.info xwf.id={XWF} job.id="q3"type="1"')
          + b"".join(B[5:]),
          "a stray quote in a bare value, an unterminated quoted value, no space after a quoted value",
          {"error": "ParseError", "where": 6, "expected": BP_SYNTAX},
          {"skipped": {"expected " + BP_SYNTAX: 3}, "nodes": BASE_NODES})

    write("tricky-quoting-ok.bp",
          b"".join(B)
          + ln(f'ts=1970-02-06T23:45:31Z event=task.info xwf.id={XWF} task.id="t 2" type="1" '
               r'argv="say \"hi\" to C:\\temp and keep \n as two characters" transformation=a=b'),
          "valid but tricky quoting: escaped quotes and backslashes, a backslash before another "
          "character, spaces in ids, '=' inside a bare value",
          {"nodes": {"Job": 5, "Task": 2, "Workflow": 1},
           "props": {f"pegasus:task:{XWF}:t 2": {
               "argv": 'say "hi" to C:\\temp and keep \\n as two characters',
               "transformation": "a=b", "task_id": "t 2"}}})

    write("wrong-types.bp",
          b"".join(B[:9])
          + ln(f'ts=1970-02-06T23:45:31Z event=job_inst.main.end xwf.id={XWF} job.id="ls_ID0000001" job_inst.id="first" status="0"')
          + ln(f'ts=1970-02-06T23:45:31Z event=job.info xwf.id={XWF} job.id="typed" type="compute"')
          + ln(f'ts=yesterday event=job.info xwf.id={XWF} job.id="when" type="1"')
          + b"".join(B[9:]),
          "a job_inst.id that is not an integer, a job type that is a word, a ts that is no time",
          {"error": "ParseError", "where": 10, "expected": "an integer for 'job_inst.id'"},
          {"skipped": skipped(**{"an integer for 'job_inst.id'": 1, "an integer for 'type'": 1,
                                 "a valid 'ts' timestamp": 1}),
           "nodes": BASE_NODES})

    conflict = B[5].decode().replace('type="4"', 'type="1"')
    assert conflict != B[5].decode()
    write("duplicate-ids.bp",
          b"".join(B) + B[5] + conflict.encode(),
          "job register_local_0_0 declared three times: an identical repeat (harmless, as after a "
          "monitord replay) and then with another type (line 16)",
          {"error": "ParseError", "where": 16, "expected": "one job.info per job id (job 'register_local_0_0' was declared at line 6"},
          {"skipped": {"expected one job.info per job id (job 'register_local_0_0' was declared at line 6 with other values)": 1},
           "nodes": BASE_NODES,
           "props": {f"pegasus:job:{XWF}:register_local_0_0": {"type": 4}}})

    write("unknown-events-and-fields.bp",
          b"".join(B)
          + ln(f'ts=1970-02-06T23:45:31Z event=job_inst.teleport.start xwf.id={XWF} job.id="x" job_inst.id="1"')
          + ln(f'ts=1970-02-06T23:45:31Z event=stampede.brand.new level=Info xwf.id={XWF}')
          + ln(f'ts=1970-02-06T23:45:31Z event=job.info xwf.id={XWF} job.id="extra" type="1" colour="blue" x.y.z=1'),
          "event types the loader does not know (counted as unknown, not fatal) and unknown keys "
          "in a known event (ignored)",
          {"nodes": {"Job": 6, "Task": 1, "Workflow": 1},
           "unknown": {"event job_inst.teleport.start": 1, "event brand.new": 1},
           "props": {f"pegasus:job:{XWF}:extra": {"type": 1, "job_id": "extra", "colour": None}}})

    write("binary-garbage.bp",
          b"".join(B[:4]) + b"\x89PNG\r\n" + b"\x1a\x00\x00\x00\rIHDR\x00\x00\x01\x00\n"
          + b"\xff\xfe\xfd garbage\x00\n" + b"".join(B[4:]),
          "three lines of binary (a PNG header) inside the stream",
          {"error": "ParseError", "where": 5, "expected": "UTF-8 text"},
          {"skipped": skipped(**{"UTF-8 text": 2, BP_SYNTAX: 1}), "nodes": BASE_NODES})

    write("non-utf8.bp",
          B[0] + f'ts=1970-02-06T23:45:30.19Z event=task.info xwf.id={XWF} task.id="latin" transformation="caf'.encode()
          + b'\xe9"\n' + b"".join(B[1:]),
          "a Latin-1 byte (0xE9) in a value on line 2",
          {"error": "ParseError", "where": 2, "expected": "UTF-8 text"},
          {"skipped": skipped(**{"UTF-8 text": 1}), "nodes": BASE_NODES})

    long_argv = ("-x " + "0123456789abcdef" * 20000)[:300000]
    write("long-line.bp",
          b"".join(B) + ln(f'ts=1970-02-06T23:45:31Z event=task.info xwf.id={XWF} task.id="long" argv="{long_argv}"'),
          "a 300 kB line (long but under the 16 MiB limit): loaded verbatim",
          {"nodes": {"Job": 5, "Task": 2, "Workflow": 1},
           "lengths": {f"pegasus:task:{XWF}:long": {"argv": 300000}}})

    write("empty.bp", b"", "an empty file: no records; `--source pegasus` refuses it as unrecognised",
          {"nodes": {}}, detected=False)

    write("blank-and-comments.bp", b"\n   \n# a comment\n\t\n",
          "only blank lines and a comment: no records; not recognised as a Pegasus stream",
          {"nodes": {}}, detected=False)

    write("chimbuko-json-as-pegasus.json",
          b'[\n {"pid": 0, "rid": 1, "fid": 3, "func": "MPI_Comm_rank", "runtime_total": 12}\n]\n',
          "a JSON file (Chimbuko-like) given with --source pegasus",
          {"error": "ParseError", "where": 1, "expected": BP_SYNTAX},
          {"skipped": {"expected " + BP_SYNTAX: 3}, "nodes": {}}, detected=False)

    write("xalt-json-named-bp.bp",
          b'{"userT": {"syshost": "stampede2", "run_uuid": "acc1af54"}, "cmdlineA": ["./a.out"]}\n',
          "a JSON record (XALT-like) in a file named .bp",
          {"error": "ParseError", "where": 1, "expected": BP_SYNTAX},
          {"skipped": {"expected " + BP_SYNTAX: 1}, "nodes": {}}, detected=False)

    swift = sorted((samples / "swift").glob("*.log"))[0].read_bytes().splitlines(keepends=True)[:3]
    write("swift-log-as-pegasus.bp", b"".join(swift),
          "the first three lines of a Swift log, named .bp and given with --source pegasus",
          {"error": "ParseError", "where": 1, "expected": BP_SYNTAX},
          {"skipped": {"expected " + BP_SYNTAX: 3}, "nodes": {}}, detected=False)

    write("missing-ts-or-event.bp",
          b"".join(B) + ln(f'event=job.info xwf.id={XWF} job.id="nots"') + ln(f"ts=1 xwf.id={XWF}"),
          "an event without ts and a line without event",
          {"error": "ParseError", "where": 15, "expected": "a BP event with 'ts' and 'event' keys"},
          {"skipped": skipped(**{"a BP event with 'ts' and 'event' keys": 2}), "nodes": BASE_NODES})

    write("huge-integer.bp",
          b"".join(B)
          + ln(f'ts=1970-02-06T23:45:31Z event=job_inst.main.end xwf.id={XWF} job.id="ls_ID0000001" job_inst.id="1" exitcode="99999999999999999999999"')
          + ln(f'ts=1970-02-06T23:45:31Z event=job_inst.main.end xwf.id={XWF} job.id="ls_ID0000001" job_inst.id="2" exitcode="1.5e999"'),
          "an exit code beyond 64 bits (Neo4j could not store it) and one that overflows a float",
          {"error": "ParseError", "where": 15, "expected": "a 64-bit integer for 'exitcode'"},
          {"skipped": skipped(**{"a 64-bit integer for 'exitcode'": 1, "an integer for 'exitcode'": 1}),
           "nodes": BASE_NODES})

    write("nonfinite-timestamp.bp",
          b"".join(B) + ln(f'ts=nan event=job.info xwf.id={XWF} job.id="n1"') + ln(f'ts=-inf event=job.info xwf.id={XWF} job.id="n2"')
          + ln(f'ts=1e400 event=job.info xwf.id={XWF} job.id="n3"'),
          "timestamps that are not finite or out of range",
          {"error": "ParseError", "where": 15, "expected": "a valid 'ts' timestamp"},
          {"skipped": skipped(**{"a valid 'ts' timestamp": 3}), "nodes": BASE_NODES})

    write("crlf-and-bom.bp", b"\xef\xbb\xbf" + b"".join(line.rstrip(b"\n") + b"\r\n" for line in B),
          "a byte order mark and Windows line ends: read as the plain file",
          {"nodes": BASE_NODES})

    write("control-characters-ok.bp",
          b"".join(B) + ln(f'ts=1970-02-06T23:45:31Z event=task.info xwf.id={XWF} task.id="ctl" argv="a\x00b\x1b[31mred\x7f"'),
          "NUL, an ANSI escape and DEL inside a quoted value: valid UTF-8, stored verbatim",
          {"nodes": {"Job": 5, "Task": 2, "Workflow": 1},
           "props": {f"pegasus:task:{XWF}:ctl": {"argv": "a\x00b\x1b[31mred\x7f"}}})
    return written
