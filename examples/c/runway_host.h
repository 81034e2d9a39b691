/*
 * runway_host.h — what the parts of runway_host share (runway_host.c: the command line and the
 * replay; runway_host_events.c: printing events on the callback thread; runway_host_io.c:
 * reading the input, the profile, writing the summary, library errors).
 */
#ifndef RUNWAY_HOST_H
#define RUNWAY_HOST_H

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

typedef struct printer {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  long every;        /* print flight event 1, 1+every, 1+2*every, ... */
  long flights;      /* flight events seen */
  double last_seq;   /* highest seq seen */
} printer;

extern const char *prog;

/* runway_host_events.c */
void on_event(const char *event_json, void *user);
int wait_for_seq(printer *p, double seq);

/* runway_host_io.c */
int library_error(const char *what, runway_status st);
double latest_seq(runway_session *s);
int is_fix(const cJSON *obj, double *t);
int is_timed(const cJSON *obj, double *t);
int has_type(const cJSON *obj, const char *type_name);
char *read_all(FILE *in, size_t *size);
char *config_with_profile(const char *config, const char *input);
int write_summary(const char *summary, int keep_route, const char *out_path);

#endif
