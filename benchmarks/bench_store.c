/*
 * bench_store — fixes per second into a flight store, against SQLite alone.
 *
 *   bench_store every_fix|batched N RUNS DIR
 *
 * Engine: a session with {"store":DIR/engine.db,"durability":MODE}, started, N fixes pushed with
 * runway_push_fix; the time covers the pushes and runway_session_close (which commits what a
 * batched store still holds).
 * Floor: a bare C loop on DIR/floor.db with the store's settings (WAL, synchronous=FULL,
 * foreign_keys=ON) and a journal-like table (flight_id, n, kind, t, payload TEXT; the store's own
 * layout: primary key (flight_id, n), WITHOUT ROWID, referencing a flight row) inserting one row a
 * fix whose payload is the fix as JSON text: every_fix = one transaction per row; batched = one
 * transaction per second of wall-clock time (the store's batch window), and a last commit at the
 * end. Both start from a new file each run. One JSON line per run:
 *   {"bench":"store","mode":"every_fix","n":N,"run":r,"engine_s":..,"base_s":..}
 */
#include <sqlite3.h>
#include <unistd.h>

#include "bench_common.h"

static void remove_db(const char *path) {
  char p[4096];
  unlink(path);
  snprintf(p, sizeof p, "%s-wal", path);
  unlink(p);
  snprintf(p, sizeof p, "%s-shm", path);
  unlink(p);
  snprintf(p, sizeof p, "%s-journal", path);
  unlink(p);
  snprintf(p, sizeof p, "%s.lock", path);
  unlink(p);
}

static void sql(sqlite3 *db, const char *text) {
  char *err = NULL;
  if (sqlite3_exec(db, text, NULL, NULL, &err) != SQLITE_OK) {
    fprintf(stderr, "sqlite: %s: %s\n", text, err ? err : "?");
    exit(3);
  }
}

static double run_engine(const bench_input *in, const char *mode, const char *dir) {
  char path[4096], config[4300];
  snprintf(path, sizeof path, "%s/engine.db", dir);
  remove_db(path);
  snprintf(config, sizeof config, "{\"store\":\"%s\",\"durability\":\"%s\",\"flight_id\":\"bench\"}", path, mode);
  runway_session *s = open_started(config);
  uint64_t t0 = now_ns();
  for (long i = 0; i < in->n; i++) {
    runway_status st = runway_push_fix(s, &in->fixes[i]);
    if (st != RUNWAY_OK) die_status("runway_push_fix", st);
  }
  runway_session_close(s);
  double secs = seconds_since(t0);
  remove_db(path);
  return secs;
}

static double run_floor(const bench_input *in, int batched, const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/floor.db", dir);
  remove_db(path);
  sqlite3 *db = NULL;
  if (sqlite3_open(path, &db) != SQLITE_OK) { fprintf(stderr, "sqlite open %s\n", path); exit(3); }
  sqlite3_busy_timeout(db, 5000);
  sql(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;");
  sql(db, "CREATE TABLE flight (id TEXT PRIMARY KEY NOT NULL, config TEXT NOT NULL);"
          "CREATE TABLE journal (flight_id TEXT NOT NULL REFERENCES flight (id) ON DELETE CASCADE,"
          " n INTEGER NOT NULL, kind TEXT NOT NULL, t REAL, payload TEXT NOT NULL,"
          " PRIMARY KEY (flight_id, n)) WITHOUT ROWID;"
          "INSERT INTO flight VALUES ('bench', '{}');");
  sqlite3_stmt *ins = NULL;
  if (sqlite3_prepare_v3(db, "INSERT INTO journal (flight_id, n, kind, t, payload) VALUES (?1, ?2, ?3, ?4, ?5)",
                         -1, SQLITE_PREPARE_PERSISTENT, &ins, NULL) != SQLITE_OK) {
    fprintf(stderr, "prepare: %s\n", sqlite3_errmsg(db));
    exit(3);
  }
  char payload[256];
  uint64_t t0 = now_ns(), batch_start = 0;
  int open_tx = 0;
  for (long i = 0; i < in->n; i++) {
    int len = format_fix_json(payload, sizeof payload, &in->fixes[i]);
    if (batched && !open_tx) { sql(db, "BEGIN IMMEDIATE"); open_tx = 1; batch_start = now_ns(); }
    sqlite3_bind_text(ins, 1, "bench", 5, SQLITE_STATIC);
    sqlite3_bind_int64(ins, 2, i);
    sqlite3_bind_text(ins, 3, "input", 5, SQLITE_STATIC);
    sqlite3_bind_double(ins, 4, in->fixes[i].t);
    sqlite3_bind_text(ins, 5, payload, len, SQLITE_STATIC);
    if (sqlite3_step(ins) != SQLITE_DONE) { fprintf(stderr, "insert: %s\n", sqlite3_errmsg(db)); exit(3); }
    sqlite3_reset(ins);
    if (batched && now_ns() - batch_start >= 1000000000ull) { sql(db, "COMMIT"); open_tx = 0; }
  }
  if (open_tx) sql(db, "COMMIT");
  sqlite3_finalize(ins);
  sqlite3_close(db);
  double secs = seconds_since(t0);
  remove_db(path);
  return secs;
}

int main(int argc, char **argv) {
  if (argc != 5 || (strcmp(argv[1], "every_fix") && strcmp(argv[1], "batched"))) {
    fprintf(stderr, "usage: %s every_fix|batched N RUNS DIR\n", argv[0]);
    return 1;
  }
  const char *mode = argv[1];
  long n = atol(argv[2]);
  int runs = atoi(argv[3]);
  const char *dir = argv[4];
  int batched = !strcmp(mode, "batched");
  bench_input in;
  bench_input_make(&in, n, 0);
  bench_input warm = in;
  warm.n = n < 200 ? n : 200;
  run_engine(&warm, mode, dir);
  run_floor(&warm, batched, dir);
  for (int r = 0; r < runs; r++) {
    double e = 0, b = 0;
    for (int k = 0; k < 2; k++) {
      if ((k == 0) == (r % 2 == 0)) e = run_engine(&in, mode, dir);
      else b = run_floor(&in, batched, dir);
    }
    printf("{\"bench\":\"store\",\"mode\":\"%s\",\"n\":%ld,\"run\":%d,\"engine_s\":%.6f,\"base_s\":%.6f}\n",
           mode, n, r, e, b);
    fflush(stdout);
  }
  bench_input_free(&in);
  return 0;
}
