/* json_check.h — a strict JSON check for the fuzz harnesses that allocates nothing.
 *
 * The harnesses check that every JSON text the library returns or delivers is valid. Parsing
 * each with cJSON costs a heap allocation per value, and under AddressSanitizer those
 * allocations were most of the stateful harness's time (a summary of thousands of laps, every
 * event of every subscriber): the same check without them runs the harness several times as
 * fast. This one walks the text once and is stricter than cJSON's parse:
 *   - RFC 8259 grammar: no trailing text, no leading zeros, "1." or "+1", no NaN/Infinity, no
 *     raw control characters in strings, only the defined escapes;
 *   - strings are valid UTF-8 (no overlong forms, surrogates or code points past U+10FFFF), as
 *     a Python host's json.loads of the bytes needs;
 *   - nesting at most JSON_CHECK_MAX_DEPTH.
 * json_check() returns 1 when `text` (NUL-terminated) is such a text whose top value is an
 * object (want_array 0) or an array (want_array 1); with want_kind the top object must also have
 * a member "kind" whose value is a string (an event). Tests/fuzz/json_check_test.c tests it. */
#ifndef RUNWAY_JSON_CHECK_H
#define RUNWAY_JSON_CHECK_H

#include <string.h>

#define JSON_CHECK_MAX_DEPTH 64

/* The check is the harness's, not the library's: libFuzzer's coverage and comparison tracing of
 * its byte loops would cost a call a byte and steer the fuzzer by the check's branches. */
#if defined(__clang__)
#define JC_FN static inline __attribute__((no_sanitize("coverage")))
#else
#define JC_FN static inline
#endif

typedef struct {
  const unsigned char *p;
  int depth;
  int has_kind; /* the top object has "kind": a string */
} json_cursor;

JC_FN void jc_space(json_cursor *c) {
  while (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r') c->p++;
}

JC_FN int jc_hex(unsigned char b) {
  return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'f') || (b >= 'A' && b <= 'F');
}

/* One UTF-8 sequence of 2..4 bytes at c->p (a lead byte >= 0x80). Stops at the first byte that
 * is not a continuation, so it never reads past the terminating NUL. */
JC_FN int jc_utf8(json_cursor *c) {
  const unsigned char *s = c->p;
  unsigned lead = s[0], cp, n;
  if (lead >= 0xC2 && lead <= 0xDF) { n = 1; cp = lead & 0x1F; }
  else if (lead >= 0xE0 && lead <= 0xEF) { n = 2; cp = lead & 0x0F; }
  else if (lead >= 0xF0 && lead <= 0xF4) { n = 3; cp = lead & 0x07; }
  else return 0;
  for (unsigned i = 1; i <= n; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    cp = cp << 6 | (s[i] & 0x3F);
  }
  if (n == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) return 0;
  if (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) return 0;
  c->p += n + 1;
  return 1;
}

/* A string at its opening quote. */
JC_FN int jc_string(json_cursor *c) {
  c->p++;
  for (;;) {
    unsigned char b = *c->p;
    if (b == '"') { c->p++; return 1; }
    if (b < 0x20) return 0; /* a control character, or the end of the text */
    if (b == '\\') {
      unsigned char e = c->p[1];
      if (e == 'u') {
        for (int i = 2; i < 6; i++)
          if (!jc_hex(c->p[i])) return 0;
        c->p += 6;
      } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
        c->p += 2;
      } else {
        return 0;
      }
    } else if (b >= 0x80) {
      if (!jc_utf8(c)) return 0;
    } else {
      c->p++;
    }
  }
}

JC_FN int jc_digits(json_cursor *c) {
  if (*c->p < '0' || *c->p > '9') return 0;
  while (*c->p >= '0' && *c->p <= '9') c->p++;
  return 1;
}

JC_FN int jc_number(json_cursor *c) {
  if (*c->p == '-') c->p++;
  if (*c->p == '0') c->p++;
  else if (!jc_digits(c)) return 0;
  if (*c->p == '.') { c->p++; if (!jc_digits(c)) return 0; }
  if (*c->p == 'e' || *c->p == 'E') {
    c->p++;
    if (*c->p == '+' || *c->p == '-') c->p++;
    if (!jc_digits(c)) return 0;
  }
  return 1;
}

JC_FN int jc_literal(json_cursor *c, const char *word) {
  size_t n = strlen(word);
  if (strncmp((const char *)c->p, word, n) != 0) return 0; /* stops at the text's NUL */
  c->p += n;
  return 1;
}

JC_FN int jc_value(json_cursor *c);

JC_FN int jc_object(json_cursor *c) {
  c->p++;
  jc_space(c);
  if (*c->p == '}') { c->p++; return 1; }
  for (;;) {
    jc_space(c);
    if (*c->p != '"') return 0;
    const unsigned char *key = c->p;
    if (!jc_string(c)) return 0;
    int is_kind = c->depth == 1 && c->p - key == 6 && memcmp(key, "\"kind\"", 6) == 0;
    jc_space(c);
    if (*c->p != ':') return 0;
    c->p++;
    jc_space(c);
    if (is_kind && *c->p == '"') c->has_kind = 1;
    if (!jc_value(c)) return 0;
    jc_space(c);
    if (*c->p == ',') { c->p++; continue; }
    if (*c->p == '}') { c->p++; return 1; }
    return 0;
  }
}

JC_FN int jc_array(json_cursor *c) {
  c->p++;
  jc_space(c);
  if (*c->p == ']') { c->p++; return 1; }
  for (;;) {
    if (!jc_value(c)) return 0;
    jc_space(c);
    if (*c->p == ',') { c->p++; continue; }
    if (*c->p == ']') { c->p++; return 1; }
    return 0;
  }
}

JC_FN int jc_value(json_cursor *c) {
  jc_space(c);
  switch (*c->p) {
  case '{':
  case '[': {
    if (++c->depth > JSON_CHECK_MAX_DEPTH) return 0;
    int ok = *c->p == '{' ? jc_object(c) : jc_array(c);
    c->depth--;
    return ok;
  }
  case '"': return jc_string(c);
  case 't': return jc_literal(c, "true");
  case 'f': return jc_literal(c, "false");
  case 'n': return jc_literal(c, "null");
  default: return jc_number(c);
  }
}

JC_FN int json_check(const char *text, int want_array, int want_kind) {
  if (!text) return 0;
  json_cursor c = {(const unsigned char *)text, 0, 0};
  jc_space(&c);
  if (*c.p != (want_array ? '[' : '{')) return 0;
  if (!jc_value(&c)) return 0;
  jc_space(&c);
  if (*c.p != 0) return 0; /* text after the value */
  return want_kind ? c.has_kind : 1;
}

#endif
