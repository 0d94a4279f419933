/* SPDX-License-Identifier: MIT */
#ifndef RETIRECTL_H
#define RETIRECTL_H

/*
 * Exit status of every command: 0 done; 1 a library call failed (its
 * name and errno were printed); 2 bad usage; 3 the demo ran, but an
 * invariant it checks did not hold.
 */
#define RETIRECTL_EXIT_OK	0
#define RETIRECTL_EXIT_FAIL	1
#define RETIRECTL_EXIT_USAGE	2
#define RETIRECTL_EXIT_INVARIANT 3

struct retire_event;

/*
 * A library call failed: "retirectl: <fn>: <strerror> (<ENAME>)" on
 * stderr. Returns RETIRECTL_EXIT_FAIL.
 */
int lib_fail(const char *fn, int ret);

/*
 * A JSON string of @s on stdout, escaped by json-c; what is not
 * well-formed UTF-8 is printed as U+FFFD
 */
void json_string(const char *s);
/* one notification: a JSON object or a line of text, without a newline */
void print_event(const struct retire_event *ev, int json);

/* retirectl demo [-j]: argv[0] is "demo" */
int cmd_demo(const char *dev, int argc, char **argv);

#endif /* RETIRECTL_H */
