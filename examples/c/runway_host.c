/*
 * runway_host.c — a firmware-style C host of librunway.
 *
 * Reads GPS fixes and sensor samples as JSON Lines (one JSON object a line,
 * the shapes of docs/inputs.md) from FILE or stdin, replays them
 * through a session, prints live events as one-line PFDs, and writes the
 * flight record (summary JSON) at the end.
 *
 *   runway_host [-e N] [-r] [-o FILE] [-c CONFIG_JSON] [FILE | -]
 *
 *   -e N    print every Nth flight event as a PFD line (default 30); phase,
 *           log and other discrete events are always printed
 *   -r      keep the route in the summary (default: drop it)
 *   -o FILE write the summary to FILE instead of stdout
 *   -c JSON session config, e.g. '{"distance_filter_m":0}'
 *
 * Exit status: 0 the run completed (rejected lines are reported on stderr and
 * do not fail the run), 1 usage, 2 input or output file error (including an
 * input without any fix), 3 a library call failed (ABI mismatch, session
 * config refused, phase change or summary failed).
 *
 * The profile: input written by runway_import ends in an "import_report" line
 * naming the profile the file's sport calls for ("activity":"ride" for a bike
 * ride). The host reads the whole input first and, unless -c sets "activity",
 * opens the session with that one (a ride pushed into a run session would have
 * its fast fixes refused); the report line itself is not pushed.
 *
 * How lines are pushed: every other non-blank line goes to the library unchanged
 * through runway_push_json(); the library is the one validator of inputs
 * (fixes, samples, the start, pause and resume lines an import writes for a
 * FIT file's timer, unknown keys). The host parses each line with cJSON only
 * to read what a host needs for itself: its "t", to start the flight at the
 * first timed line's time (as runway_analyse does: a ride's sensor samples
 * and timer stops before its first position belong to the flight; a start
 * line's, {"type":"start","t":..} for a FIT timer started before its first
 * record, is then already true when pushed), and
 * whether it is a fix (an object with "lat"/"lon" and no "type"), to stop
 * the flight at the last accepted fix's time (with no fix at all, an indoor
 * flight of speed samples, at the latest input's).
 *
 * Events arrive on a library thread through a callback with the "queue"
 * policy, so that "every Nth flight event" counts real events, not coalesced
 * ones. Before the summary is written, the host waits (with a deadline) until
 * the callback has seen the snapshot's seq (the latest flight event's; the
 * stop's phase event comes before its flight snapshot), so the event lines are
 * complete and not interleaved with the summary.
 */
#define _POSIX_C_SOURCE 200809L

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runway.h"

enum { EXIT_USAGE = 1, EXIT_FILE = 2, EXIT_LIBRARY = 3 };

#define DRAIN_TIMEOUT_S 10 /* how long to wait for the callback to print the last events */

static const char *prog = "runway_host";

static void usage(FILE *to) {
  fprintf(to,
          "usage: %s [-e N] [-r] [-o FILE] [-c CONFIG_JSON] [FILE | -]\n"
          "  reads fixes as JSON Lines from FILE or stdin, prints PFD lines, writes the summary\n"
          "  -e N     print every Nth flight event (default 30)\n"
          "  -r       include the route in the summary\n"
          "  -o FILE  write the summary to FILE (default stdout)\n"
          "  -c JSON  session config, e.g. '{\"distance_filter_m\":0}'\n"
          "exit: 0 ok, 1 usage, 2 file error, 3 library error\n",
          prog);
}

/* ---- Event printing (runs on the library's callback thread) -------------- */

typedef struct printer {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  long every;        /* print flight event 1, 1+every, 1+2*every, ... */
  long flights;      /* flight events seen */
  double last_seq;   /* highest seq seen */
} printer;

static const char *str_or(const cJSON *obj, const char *key, const char *dflt) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : dflt;
}

/* "PFD  00:12:34  2.41 km  pace 5:12 [4:45 5:00 5:15 5:30 5:45]  AVG 5:08  hdg E  alt 12 m  hr 148" */
static void print_pfd(const cJSON *ev) {
  const cJSON *pfd = cJSON_GetObjectItemCaseSensitive(ev, "pfd");
  char tape[128] = "";
  const cJSON *tick;
  const cJSON *ticks = cJSON_GetObjectItemCaseSensitive(pfd, "pace_tape");
  size_t used = 0;
  cJSON_ArrayForEach(tick, ticks) {
    if (!cJSON_IsString(tick) || used >= sizeof tape) continue;
    int n = snprintf(tape + used, sizeof tape - used, "%s%s", used ? " " : "", tick->valuestring);
    if (n > 0) used += (size_t)n;
  }
  printf("PFD  %s  %s km  pace %s [%s]  %s  hdg %s  alt %s m  hr %s\n",
         str_or(pfd, "time", "--:--:--"), str_or(pfd, "distance", "--"),
         str_or(pfd, "pace", "--:--"), tape, str_or(pfd, "avg_pace", "AVG --:--"),
         str_or(pfd, "direction", "--"), str_or(pfd, "altitude", "--"), str_or(pfd, "hr", "--"));
}

static void on_event(const char *event_json, void *user) {
  printer *p = (printer *)user;
  cJSON *ev = cJSON_Parse(event_json);
  const char *kind = str_or(ev, "kind", "?");
  const cJSON *seq = cJSON_GetObjectItemCaseSensitive(ev, "seq");

  pthread_mutex_lock(&p->mu);
  int print_flight = 0;
  if (strcmp(kind, "flight") == 0) print_flight = (p->flights++ % p->every) == 0;
  pthread_mutex_unlock(&p->mu);

  if (ev == NULL) {
    printf("EVENT  (unparsable) %s\n", event_json);
  } else if (strcmp(kind, "flight") == 0) {
    if (print_flight) print_pfd(ev);
  } else if (strcmp(kind, "phase") == 0) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(ev, "t");
    printf("PHASE  %s -> %s  t %.3f\n", str_or(ev, "from", "?"), str_or(ev, "to", "?"),
           cJSON_IsNumber(t) ? t->valuedouble : NAN);
  } else if (strcmp(kind, "log") == 0) {
    printf("LOG    %s: %s\n", str_or(ev, "level", "info"), str_or(ev, "message", ""));
  } else if (strcmp(kind, "overflow") == 0) {
    const cJSON *dropped = cJSON_GetObjectItemCaseSensitive(ev, "dropped");
    printf("LOG    warning: %.0f events dropped (callback too slow)\n",
           cJSON_IsNumber(dropped) ? dropped->valuedouble : 0.0);
  } else if (strcmp(kind, "tick") != 0) { /* split, alert, and kinds added later */
    printf("%-6s %s\n", kind, event_json);
  }
  fflush(stdout);

  pthread_mutex_lock(&p->mu);
  if (cJSON_IsNumber(seq) && seq->valuedouble > p->last_seq) p->last_seq = seq->valuedouble;
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
  cJSON_Delete(ev);
}

/* Wait until the callback has handled seq, or the deadline passes. */
static int wait_for_seq(printer *p, double seq) {
  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  deadline.tv_sec += DRAIN_TIMEOUT_S;
  pthread_mutex_lock(&p->mu);
  int rc = 0;
  while (p->last_seq < seq && rc == 0) rc = pthread_cond_timedwait(&p->cv, &p->mu, &deadline);
  int ok = p->last_seq >= seq;
  pthread_mutex_unlock(&p->mu);
  return ok;
}

/* ---- Helpers ------------------------------------------------------------- */

static int library_error(const char *what, runway_status st) {
  fprintf(stderr, "%s: %s: %s (%s)\n", prog, what, runway_status_string(st), runway_last_error());
  return EXIT_LIBRARY;
}

/* The seq of the latest flight event, from the snapshot; -1 if unknown. */
static double latest_seq(runway_session *s) {
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
static int is_fix(const cJSON *obj, double *t) {
  if (!cJSON_IsObject(obj) || cJSON_GetObjectItemCaseSensitive(obj, "type") ||
      !cJSON_GetObjectItemCaseSensitive(obj, "lat") ||
      !cJSON_GetObjectItemCaseSensitive(obj, "lon"))
    return 0;
  const cJSON *tv = cJSON_GetObjectItemCaseSensitive(obj, "t");
  *t = cJSON_IsNumber(tv) ? tv->valuedouble : NAN;
  return 1;
}

/* Whether obj is a line with a time (an input or a timer line); its t. */
static int is_timed(const cJSON *obj, double *t) {
  const cJSON *tv = cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, "t") : NULL;
  if (!cJSON_IsNumber(tv)) return 0;
  *t = tv->valuedouble;
  return 1;
}

/* Whether obj is an object whose "type" is type_name. */
static int has_type(const cJSON *obj, const char *type_name) {
  const cJSON *type = cJSON_GetObjectItemCaseSensitive(obj, "type");
  return cJSON_IsString(type) && strcmp(type->valuestring, type_name) == 0;
}

/* The whole input, NUL-terminated (a NUL inside a line is caught line by line later). */
static char *read_all(FILE *in, size_t *size) {
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
   silent: its "activity" (the profile) and its "altitude_source" as "fix_altitude". NULL: use
   `config` as it is. */
static char *config_with_profile(const char *config, const char *input) {
  const char *at = strstr(input, "\"import_report\"");
  if (!at) return NULL;
  const char *start = at;
  while (start > input && start[-1] != '\n') start--;
  const char *end = strchr(at, '\n');
  size_t len = end ? (size_t)(end - start) : strlen(start);
  cJSON *report = cJSON_ParseWithLength(start, len);
  char *out = NULL;
  if (has_type(report, "import_report")) {
    cJSON *cfg = config ? cJSON_Parse(config) : cJSON_CreateObject();
    const char *keys[2][2] = {{"activity", "activity"}, {"altitude_source", "fix_altitude"}};
    int added = 0;
    for (int k = 0; k < 2 && cJSON_IsObject(cfg); k++) {
      const cJSON *v = cJSON_GetObjectItemCaseSensitive(report, keys[k][0]);
      if (!cJSON_IsString(v) || cJSON_GetObjectItemCaseSensitive(cfg, keys[k][1])) continue;
      cJSON_AddStringToObject(cfg, keys[k][1], v->valuestring);
      fprintf(stderr, "%s: the import report names the %s \"%s\"; the session uses it\n", prog,
              k == 0 ? "profile" : "altitude source", v->valuestring);
      added++;
    }
    if (added) out = cJSON_PrintUnformatted(cfg);
    cJSON_Delete(cfg);
  }
  cJSON_Delete(report);
  return out;
}

/* Write the summary: the library's text as is with -r, else without "route". */
static int write_summary(const char *summary, int keep_route, const char *out_path) {
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

/* ---- The replay ------------------------------------------------------------ */

typedef struct options {
  long every;
  int keep_route;
  const char *out_path;
  const char *config;
  const char *in_path; /* NULL or "-" = stdin */
} options;

static int parse_args(int argc, char **argv, options *o) {
  int c;
  while ((c = getopt(argc, argv, "e:ro:c:h")) != -1) {
    switch (c) {
    case 'e': {
      char *end = NULL;
      errno = 0;
      long n = strtol(optarg, &end, 10);
      if (errno || end == optarg || *end || n < 1) {
        fprintf(stderr, "%s: -e wants a whole number >= 1, got \"%s\"\n", prog, optarg);
        return -1;
      }
      o->every = n;
      break;
    }
    case 'r': o->keep_route = 1; break;
    case 'o': o->out_path = optarg; break;
    case 'c': o->config = optarg; break;
    case 'h': usage(stdout); exit(0);
    default: return -1;
    }
  }
  if (argc - optind > 1) {
    fprintf(stderr, "%s: one input file at most\n", prog);
    return -1;
  }
  if (optind < argc && strcmp(argv[optind], "-") != 0) o->in_path = argv[optind];
  return 0;
}

/* Push every line of in; start at the first timed line's time (a start line's is then already
   true), remember the last accepted fix's t; count the accepted lines and fixes. */
static int replay(runway_session *s, FILE *in, const char *in_name, double *last_fix_t,
                  long *accepted, long *fixes, long *rejected) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  long lineno = 0;
  int started = 0, rc = 0;
  while ((len = getline(&line, &cap, in)) != -1) {
    lineno++;
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
    if (len == 0) continue;
    if ((size_t)len != strlen(line)) {
      fprintf(stderr, "%s: %s:%ld: rejected: line contains a NUL byte\n", prog, in_name, lineno);
      (*rejected)++;
      continue;
    }
    cJSON *obj = cJSON_Parse(line);
    double t = NAN, line_t = NAN;
    int fix = is_fix(obj, &t), timed = is_timed(obj, &line_t);
    int report = has_type(obj, "import_report");
    cJSON_Delete(obj);
    if (report) continue; /* what the import read, not an input */
    if ((fix || timed) && !started) {
      runway_status st = runway_start(s, timed ? line_t : t);
      if (st != RUNWAY_OK) {
        rc = library_error("start", st);
        break;
      }
      started = 1;
    }
    runway_status st = runway_push_json(s, line);
    if (st == RUNWAY_OK) {
      (*accepted)++;
      if (fix) {
        (*fixes)++;
        *last_fix_t = t;
      }
    } else {
      (*rejected)++;
      fprintf(stderr, "%s: %s:%ld: rejected: %s: %s\n", prog, in_name, lineno,
              runway_status_string(st), runway_last_error());
    }
  }
  if (rc == 0 && ferror(in)) {
    fprintf(stderr, "%s: reading %s: %s\n", prog, in_name, strerror(errno));
    rc = EXIT_FILE;
  }
  free(line);
  return rc;
}

int main(int argc, char **argv) {
  options o = {30, 0, NULL, NULL, NULL};
  if (parse_args(argc, argv, &o) != 0) {
    usage(stderr);
    return EXIT_USAGE;
  }
  if (runway_abi_version() != RUNWAY_ABI_VERSION) {
    fprintf(stderr, "%s: librunway ABI %u, built against %d\n", prog, runway_abi_version(),
            RUNWAY_ABI_VERSION);
    return EXIT_LIBRARY;
  }

  const char *in_name = o.in_path ? o.in_path : "stdin";
  FILE *in = o.in_path ? fopen(o.in_path, "r") : stdin;
  if (!in) {
    fprintf(stderr, "%s: %s: %s\n", prog, o.in_path, strerror(errno));
    return EXIT_FILE;
  }

  size_t size = 0;
  char *input = read_all(in, &size);
  int read_failed = !input || ferror(in);
  if (in != stdin) fclose(in);
  if (read_failed) {
    fprintf(stderr, "%s: reading %s: %s\n", prog, in_name, input ? strerror(errno) : "out of memory");
    free(input);
    return EXIT_FILE;
  }
  char *config = config_with_profile(o.config, input);
  runway_session *s = NULL;
  runway_status st = runway_session_open(config ? config : o.config, &s);
  cJSON_free(config);
  if (st != RUNWAY_OK) {
    free(input);
    return library_error("session config", st);
  }
  in = fmemopen(input, size > 0 ? size : 1, "r");
  if (!in) {
    fprintf(stderr, "%s: %s: %s\n", prog, in_name, strerror(errno));
    free(input);
    runway_session_close(s);
    return EXIT_FILE;
  }

  printer p;
  pthread_mutex_init(&p.mu, NULL);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&p.cv, &attr);
  pthread_condattr_destroy(&attr);
  p.every = o.every;
  p.flights = 0;
  p.last_seq = -1;

  int rc = 0;
  uint64_t sub = 0;
  double seq_before = latest_seq(s); /* a subscriber gets the events after this one */
  char options_json[64];
  snprintf(options_json, sizeof options_json, "{\"policy\":\"queue\",\"capacity\":%d}",
           RUNWAY_MAX_QUEUE_CAPACITY);
  st = runway_subscribe(s, options_json, on_event, &p, &sub);
  if (st != RUNWAY_OK) rc = library_error("subscribe", st);

  double last_fix_t = NAN;
  long accepted = 0, fixes = 0, rejected = 0;
  if (rc == 0) rc = replay(s, in, in_name, &last_fix_t, &accepted, &fixes, &rejected);
  fclose(in);
  free(input);

  if (rc == 0 && accepted == 0) {
    fprintf(stderr, "%s: %s: no input was accepted\n", prog, in_name);
    rc = EXIT_FILE;
  }
  if (rc == 0) {
    st = runway_stop(s, last_fix_t); /* (NaN with no fix: the latest input's time) */
    /* A sample after the last fix moved the clock on: stop "now", at that sample. */
    if (st == RUNWAY_ERR_INPUT) st = runway_stop(s, NAN);
    if (st != RUNWAY_OK) rc = library_error("stop", st);
  }

  /* Let the callback print what is queued, then end the subscription. */
  double seq = latest_seq(s);
  if (sub != 0 && seq > seq_before && !wait_for_seq(&p, seq))
    fprintf(stderr, "%s: events still queued after %d s; not printed\n", prog, DRAIN_TIMEOUT_S);
  if (sub != 0) runway_unsubscribe(s, sub);

  if (rc == 0) {
    char *summary = NULL;
    st = runway_summary_json(s, &summary);
    if (st != RUNWAY_OK) rc = library_error("summary", st);
    else rc = write_summary(summary, o.keep_route, o.out_path);
    runway_string_free(summary);
  }
  if (rejected > 0)
    fprintf(stderr, "%s: %ld line(s) rejected, %ld fixes accepted\n", prog, rejected, fixes);

  runway_session_close(s);
  pthread_mutex_destroy(&p.mu);
  pthread_cond_destroy(&p.cv);
  return rc;
}
