/* NetLogger BP lines in C: the common case of lineage/sources/pegasus/netlogger.py's
 * parse_line, compiled when the package is installed (hatch_build.py) and optional.
 *
 *     >>> from lineage.sources.pegasus._netlogger_c import split_line
 *     >>> split_line('ts=1331642136 event=x argv="-a b"\n')
 *     {'ts': '1331642136', 'event': 'x', 'argv': '-a b'}
 *     >>> split_line('a=1  b=2') is None   # two blanks: read in Python
 *     True
 *
 * split_line takes the lines whose pairs are separated by single spaces, whose keys match
 * [A-Za-z_][A-Za-z0-9_.:-]* and whose values are bare words or double-quoted strings without
 * a backslash, tab, carriage return or line feed; it returns exactly the dict parse_line
 * returns for them (tests/test_fuzz_parsers.py holds it to the character-by-character
 * reader). For any other line it returns None and reads nothing further: the caller reads
 * that line in Python, which also names the column of a fault. Keys are interned, so the
 * dicts of a stream share their few dozen key strings.
 *
 * SOURCE_SHA256 is the SHA-256 of this file as it was compiled (hatch_build.py passes it):
 * netlogger.py uses the module only when it matches the file beside it, so a build left
 * over from an older version of this file is never taken for the current one.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#ifndef LINEAGE_SOURCE_SHA256
#define LINEAGE_SOURCE_SHA256 "" /* compiled by hand: matches no source, never used */
#endif

static int
is_key_start(Py_UCS4 c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static int
is_key_char(Py_UCS4 c)
{
    return is_key_start(c) || (c >= '0' && c <= '9') || c == '.' || c == ':' || c == '-';
}

/* a character that sends the line to the Python reader wherever it stands in a value */
static int
is_special(Py_UCS4 c)
{
    return c == '\\' || c == '\t' || c == '\r' || c == '\n';
}

static PyObject *
split_line(PyObject *module, PyObject *line)
{
    if (!PyUnicode_Check(line)) {
        PyErr_Format(PyExc_TypeError, "split_line() takes a str, not %.100s",
                     Py_TYPE(line)->tp_name);
        return NULL;
    }
    const int kind = PyUnicode_KIND(line);
    const void *data = PyUnicode_DATA(line);
    Py_ssize_t n = PyUnicode_GET_LENGTH(line);
    while (n > 0) { /* line.rstrip("\r\n") */
        Py_UCS4 c = PyUnicode_READ(kind, data, n - 1);
        if (c != '\r' && c != '\n') {
            break;
        }
        n--;
    }
    if (n == 0) {
        Py_RETURN_NONE;
    }
    PyObject *pairs = PyDict_New();
    if (pairs == NULL) {
        return NULL;
    }
    Py_ssize_t i = 0; /* invariant at the top of the loop: i < n */
    for (;;) {
        const Py_ssize_t key_start = i;
        if (!is_key_start(PyUnicode_READ(kind, data, i))) {
            goto python_reads_it;
        }
        i++;
        while (i < n && is_key_char(PyUnicode_READ(kind, data, i))) {
            i++;
        }
        if (i >= n || PyUnicode_READ(kind, data, i) != '=') {
            goto python_reads_it;
        }
        const Py_ssize_t key_end = i++;
        Py_ssize_t value_start, value_end;
        if (i < n && PyUnicode_READ(kind, data, i) == '"') {
            value_start = ++i;
            for (;;) {
                if (i >= n) {
                    goto python_reads_it; /* unterminated */
                }
                Py_UCS4 c = PyUnicode_READ(kind, data, i);
                if (c == '"') {
                    break;
                }
                if (is_special(c)) {
                    goto python_reads_it;
                }
                i++;
            }
            value_end = i++; /* past the closing quote */
        }
        else {
            value_start = i;
            while (i < n) {
                Py_UCS4 c = PyUnicode_READ(kind, data, i);
                if (c == ' ') {
                    break;
                }
                if (c == '"' || is_special(c)) {
                    goto python_reads_it;
                }
                i++;
            }
            value_end = i;
        }
        PyObject *key = PyUnicode_Substring(line, key_start, key_end);
        if (key == NULL) {
            goto failed;
        }
        PyUnicode_InternInPlace(&key);
        PyObject *value = PyUnicode_Substring(line, value_start, value_end);
        if (value == NULL) {
            Py_DECREF(key);
            goto failed;
        }
        const int set = PyDict_SetItem(pairs, key, value); /* a repeated key: the last wins */
        Py_DECREF(key);
        Py_DECREF(value);
        if (set < 0) {
            goto failed;
        }
        if (i >= n) {
            return pairs;
        }
        if (PyUnicode_READ(kind, data, i) != ' ') {
            goto python_reads_it; /* something right after a closing quote */
        }
        i++;
        if (i >= n) {
            goto python_reads_it; /* a blank at the end */
        }
    }
python_reads_it:
    Py_DECREF(pairs);
    Py_RETURN_NONE;
failed:
    Py_DECREF(pairs);
    return NULL;
}

static PyMethodDef methods[] = {
    {"split_line", split_line, METH_O,
     "split_line(line) -> dict of the line's key/value pairs, or None: read it in Python."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef netlogger_c = {
    PyModuleDef_HEAD_INIT,
    "_netlogger_c",
    "NetLogger BP lines in C: the common case of netlogger.parse_line.",
    -1,
    methods,
};

PyMODINIT_FUNC
PyInit__netlogger_c(void)
{
    PyObject *module = PyModule_Create(&netlogger_c);
    if (module != NULL
        && PyModule_AddStringConstant(module, "SOURCE_SHA256", LINEAGE_SOURCE_SHA256) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
