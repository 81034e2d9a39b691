/* fuzz_json_diff — differential: the JSON fast path against cJSON, the parser of record.
 *
 * The bytes go to both paths of the input decoder (runway_push_json's and, line by line,
 * runway_push_jsonl's) through runway_fuzz_json_difference, an entry point of the fuzzing build
 * only: they must give the same input bit for bit (sign of zero and NaN included), or the same
 * status and message. Any difference aborts with both results. The whole input is one text, then
 * each of its lines as push_jsonl cuts them (at LF, a CR before it dropped, leading spaces
 * skipped, blank lines left out). At exit it prints how many texts each fast path took. */
#include "fuzz_common.h"

char *runway_fuzz_json_difference(const void *bytes, size_t len, int *fast);

static unsigned long texts, fast_inputs, fast_objects;

static void report(void) {
  fprintf(stderr, "fuzz_json_diff: of %lu texts the input fast path took %lu, the object fast path %lu\n", texts,
          fast_inputs, fast_objects);
}

static void compare(const uint8_t *p, size_t n) {
  int fast = 0;
  char *diff = runway_fuzz_json_difference(p, n, &fast);
  texts++;
  fast_inputs += (unsigned long)(fast & 1);
  fast_objects += (unsigned long)((fast >> 1) & 1);
  if (diff) {
    fprintf(stderr, "input (%zu bytes): %.*s\n", n, (int)(n > 400 ? 400 : n), (const char *)p);
    fail("the fast path and cJSON differ", diff);
  }
}

static int is_space(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int registered;
  if (!registered) { registered = 1; atexit(report); }
  compare(data, size);
  size_t start = 0;
  while (start < size) {
    size_t end = start;
    while (end < size && data[end] != '\n') end++;
    size_t stop = end;
    if (stop > start && data[stop - 1] == '\r') stop--;
    size_t first = start;
    while (first < stop && is_space(data[first])) first++;
    if (first < stop && (first != start || stop != size)) compare(data + first, stop - first);
    start = end + 1;
  }
  return 0;
}
