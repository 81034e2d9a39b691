/*
 * runway_host_io.c — runway_host's helpers: library errors, the latest seq, what a line is,
 * reading the input, the profile it names, writing the summary (see runway_host.c).
 */
#define _POSIX_C_SOURCE 200809L

#include "runway_host.h"

/* ---- Helpers ------------------------------------------------------------- */

int library_error(const char *what, runway_status st) {
  fprintf(stderr, "%s: %s: %s (%s)\n", prog, what, runway_status_string(st), runway_last_error());
  return EXIT_LIBRARY;
}

/* The seq of the latest flight event, from the snapshot; -1 if unknown. */
double latest_seq(runway_session *s) {
  char *json = NULL;
  double seq = -1;
  if (runway_snapshot_json(s, &json) == RUNWAY_OK) {
    cJSON *snap = cJSON_Parse(json);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(snap, "seq");
    if (cJSON_IsNumber(v)) seq = v->valuedouble;
    cJSON_Delete(snap);
  }
  runway_string_free(json);
  return seq;
}

/* A line is a fix when it is an object with lat and lon and no "type";
 * *t receives its "t" (NaN when absent, as a live-clock host sends). */
int is_fix(const cJSON *obj, double *t) {
  if (!cJSON_IsObject(obj) || cJSON_GetObjectItemCaseSensitive(obj, "type") ||
      !cJSON_GetObjectItemCaseSensitive(obj, "lat") ||
      !cJSON_GetObjectItemCaseSensitive(obj, "lon"))
    return 0;
  const cJSON *tv = cJSON_GetObjectItemCaseSensitive(obj, "t");
  *t = cJSON_IsNumber(tv) ? tv->valuedouble : NAN;
  return 1;
}

/* Whether obj is a line with a time (an input or a timer line); its t. */
int is_timed(const cJSON *obj, double *t) {
  const cJSON *tv = cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, "t") : NULL;
  if (!cJSON_IsNumber(tv)) return 0;
  *t = tv->valuedouble;
  return 1;
}

/* Whether obj is an object whose "type" is type_name. */
int has_type(const cJSON *obj, const char *type_name) {
  const cJSON *type = cJSON_GetObjectItemCaseSensitive(obj, "type");
  return cJSON_IsString(type) && strcmp(type->valuestring, type_name) == 0;
}

/* The whole input, NUL-terminated (a NUL inside a line is caught line by line later). */
char *read_all(FILE *in, size_t *size) {
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    if (n + 1 >= cap) {
      char *bigger = realloc(buf, cap * 2);
      if (!bigger) { free(buf); return NULL; }
      buf = bigger;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - 1 - n, in);
    n += got;
    if (got == 0) break;
  }
  if (buf) buf[n] = '\0';
  *size = n;
  return buf;
}

/* The session config: `config` with what the input's import report says added where `config` is
   silent (runway_replay_config: its "activity", its "altitude_source" as "fix_altitude", its
   "auto_lap_m", 0 when the recording's own laps come as lap lines), said on stderr when it adds
   anything. NULL: use `config` as it is (no report line; or a refused one, or a config that is
   not an object, which runway_session_open then refuses with its own message). */
char *config_with_profile(const char *config, const char *input) {
  const char *at = strstr(input, "\"import_report\"");
  if (!at) return NULL;
  const char *start = at;
  while (start > input && start[-1] != '\n') start--;
  const char *end = strchr(at, '\n');
  size_t len = end ? (size_t)(end - start) : strlen(start);
  char *line = malloc(len + 1);
  if (!line) return NULL;
  memcpy(line, start, len);
  line[len] = '\0';
  char *out = NULL;
  runway_status st = runway_replay_config(line, config, &out);
  free(line);
  if (st != RUNWAY_OK) {
    if (st != RUNWAY_ERR_ARGUMENT) fprintf(stderr, "%s: the import report is ignored: %s\n", prog, runway_last_error());
    return NULL;
  }
  if (strcmp(out, config ? config : "{}") != 0)
    fprintf(stderr, "%s: the import report sets the session config: %s\n", prog, out);
  return out;
}

/* Write the summary: the library's text as is with -r, else without "route". */
int write_summary(const char *summary, int keep_route, const char *out_path) {
  char *text = NULL;
  if (!keep_route) {
    cJSON *obj = cJSON_Parse(summary);
    if (obj) {
      cJSON_DeleteItemFromObjectCaseSensitive(obj, "route");
      text = cJSON_PrintUnformatted(obj);
      cJSON_Delete(obj);
    }
  }
  const char *body = text ? text : summary;
  FILE *out = out_path ? fopen(out_path, "w") : stdout;
  if (!out) {
    fprintf(stderr, "%s: %s: %s\n", prog, out_path, strerror(errno));
    free(text);
    return EXIT_FILE;
  }
  int bad = fprintf(out, "%s\n", body) < 0;
  bad |= out_path ? fclose(out) != 0 : fflush(out) != 0;
  free(text);
  if (bad) {
    fprintf(stderr, "%s: writing %s failed\n", prog, out_path ? out_path : "stdout");
    return EXIT_FILE;
  }
  return 0;
}
