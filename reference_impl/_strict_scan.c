/* The strict JSON reader's native check (reference_impl/strict_json.py, _fast): whether a value
 * msgspec decoded from a text can be returned as the strict reading of that text.
 *
 * msgspec refuses NaN, Infinity, numbers out of range, lone surrogates, invalid UTF-8 and
 * trailing data itself. What it cannot see, this reads in one pass over the text and one walk
 * of the value, with no allocation:
 *   - a duplicate key: msgspec keeps the last of two, so the value holds fewer pairs than the
 *     text has ':' outside its strings (in valid JSON each such ':' is a pair's);
 *   - nesting deeper than max_depth: the brackets outside strings;
 *   - an integer of more than max_digits digits: a run of digits outside strings (a long
 *     fraction or exponent too; then the stdlib path decides, which is only slower).
 * It never refuses: False means "cannot vouch", and the stdlib path decides and words the
 * refusal. Built by hatch_build.py; strict_json.py falls back to its Python checks without it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* What a byte outside a string means to the scan; 0 for the rest (blanks, commas, literals). */
enum { PLAIN, QUOTE, COLON, OPEN, CLOSE, DIGIT };
static unsigned char kind[256];

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL
#define SPACES 0x2020202020202020ULL
#define QUOTES 0x2222222222222222ULL

static inline uint64_t
word(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* The lowest set bit marks the first zero byte of w (higher bits may be false). Byte order:
   the first byte is the lowest on little-endian machines, the only ones the words are read on. */
static inline uint64_t
zero_bytes(uint64_t w)
{
    return (w - ONES) & ~w & HIGHS;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define WORDS 1
#else
#define WORDS 0
#endif

/* The first '"' from p: eight bytes at a time through a short string (a key), memchr past. */
static inline const unsigned char *
next_quote(const unsigned char *p, const unsigned char *end)
{
    if (WORDS) {
        Py_ssize_t words = (end - p) / 8;
        for (words = words > 8 ? 8 : words; words > 0; words--, p += 8) {
            uint64_t found = zero_bytes(word(p) ^ QUOTES);
            if (found)
                return p + (__builtin_ctzll(found) >> 3);
        }
    }
    return p < end ? memchr(p, '"', (size_t)(end - p)) : NULL;
}

/* 1 when the text passes: *colons is then its ':' count outside strings. */
static int
scan(const unsigned char *p, Py_ssize_t n, Py_ssize_t max_depth, Py_ssize_t max_digits,
     Py_ssize_t *colons)
{
    const unsigned char *end = p + n;
    Py_ssize_t depth = 0, count = 0;
    while (p < end) {
        switch (kind[*p]) {
        case PLAIN:
            /* blanks, commas and literals; a pretty-printed text's indentation eight spaces at
               a time */
            do {
                p++;
                while (WORDS && end - p >= 8) {
                    uint64_t other = word(p) ^ SPACES;
                    if (other) {
                        p += __builtin_ctzll(other) >> 3;
                        break;
                    }
                    p += 8;
                }
            } while (p < end && kind[*p] == PLAIN);
            break;
        case QUOTE: {
            /* the closing quote: the first one after an even run of backslashes */
            const unsigned char *start = ++p;
            for (;;) {
                const unsigned char *q = next_quote(p, end);
                if (q == NULL)
                    return 0; /* not after msgspec accepted the text */
                const unsigned char *b = q;
                while (b > start && b[-1] == '\\')
                    b--;
                p = q + 1;
                if (((q - b) & 1) == 0)
                    break;
            }
            break;
        }
        case COLON:
            count++;
            p++;
            break;
        case OPEN:
            if (++depth > max_depth)
                return 0;
            p++;
            break;
        case CLOSE:
            depth--;
            p++;
            break;
        default: { /* DIGIT: a number's run of digits (its integer, fraction or exponent part) */
            const unsigned char *first = p++;
            while (p < end && kind[*p] == DIGIT)
                p++;
            if (p - first > max_digits)
                return 0;
            break;
        }
        }
    }
    *colons = count;
    return 1;
}

/* The pairs of every dict in a decoded value (containers only: dicts and lists). */
static Py_ssize_t
pairs_in(PyObject *v)
{
    Py_ssize_t n = 0;
    if (PyDict_CheckExact(v)) {
        Py_ssize_t pos = 0;
        PyObject *key, *item;
        n = PyDict_GET_SIZE(v);
        while (PyDict_Next(v, &pos, &key, &item)) {
            if (PyDict_CheckExact(item) || PyList_CheckExact(item))
                n += pairs_in(item);
        }
    }
    else {
        Py_ssize_t size = PyList_GET_SIZE(v);
        for (Py_ssize_t i = 0; i < size; i++) {
            PyObject *item = PyList_GET_ITEM(v, i);
            if (PyDict_CheckExact(item) || PyList_CheckExact(item))
                n += pairs_in(item);
        }
    }
    return n;
}

/* vouch(text, value, max_depth, max_digits) -> bool */
static PyObject *
vouch(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "vouch(text, value, max_depth, max_digits)");
        return NULL;
    }
    (void)module;
    Py_ssize_t max_depth = PyLong_AsSsize_t(args[2]);
    Py_ssize_t max_digits = PyLong_AsSsize_t(args[3]);
    if ((max_depth == -1 || max_digits == -1) && PyErr_Occurred())
        return NULL;
    Py_ssize_t colons = 0;
    int passes;
    if (PyUnicode_Check(args[0])) {
        Py_ssize_t n;
        const char *text = PyUnicode_AsUTF8AndSize(args[0], &n); /* msgspec's cached UTF-8 */
        if (text == NULL) {
            PyErr_Clear();
            Py_RETURN_FALSE;
        }
        passes = scan((const unsigned char *)text, n, max_depth, max_digits, &colons);
    }
    else {
        Py_buffer view;
        if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) != 0)
            return NULL;
        passes = scan((const unsigned char *)view.buf, view.len, max_depth, max_digits, &colons);
        PyBuffer_Release(&view);
    }
    if (!passes)
        Py_RETURN_FALSE;
    PyObject *value = args[1];
    /* a scalar has no pair; a container nests no deeper than the text's brackets, which the
       scan held to max_depth, so the walk's recursion is bounded */
    if (!(PyDict_CheckExact(value) || PyList_CheckExact(value)))
        return PyBool_FromLong(colons == 0);
    return PyBool_FromLong(pairs_in(value) == colons);
}

static PyMethodDef methods[] = {
    {"vouch", (PyCFunction)(void (*)(void))vouch, METH_FASTCALL,
     "vouch(text, value, max_depth, max_digits) -> bool: whether the value msgspec decoded from\n"
     "text kept every pair, nests at most max_depth levels and holds no run of more than\n"
     "max_digits digits outside a string."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_strict_scan", NULL, 0, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__strict_scan(void)
{
    kind['"'] = QUOTE;
    kind[':'] = COLON;
    kind['['] = kind['{'] = OPEN;
    kind[']'] = kind['}'] = CLOSE;
    for (int c = '0'; c <= '9'; c++)
        kind[c] = DIGIT;
    return PyModule_Create(&module_def);
}
