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
 *
 * Here the command line and the replay; the event printing is in runway_host_events.c, the
 * input, profile and summary helpers in runway_host_io.c, what they share in runway_host.h.
 */
#define _POSIX_C_SOURCE 200809L

#include "runway_host.h"

const char *prog = "runway_host";

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
  /* "--help" (what a newcomer tries first) is -h: getopt takes no long options. */
  for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
    if (strcmp(argv[i], "--help") == 0) { usage(stdout); exit(0); }
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
  runway_string_free(config);
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
