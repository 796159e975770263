/* Greedy, as a C program: the move that captures the most pieces (the first such in the order of
 * the legal actions), found by asking ludica's API to apply each one. A reference agent for the
 * line protocol (docs/protocol.md). Build and run:
 *     gcc -O2 -o greedy greedy.c
 *     ludica evaluate --agent-cmd ./greedy
 * The answers have a fixed key order and no spaces, so strstr and strtol read them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE (1 << 20)
static char line[LINE], state[LINE], actions[LINE];

static int read_line(char *into) {
    for (;;) {
        if (!fgets(into, LINE, stdin)) return 0;
        into[strcspn(into, "\r\n")] = 0;
        if (into[0]) return 1;
    }
}

/* The pieces the action captures: {"call":"apply_action","state":[...],"action":A} answered
 * {"ok":true,"value":{"state":[...],"captured":N,...}}. */
static long captured(const char *cells, long action) {
    printf("{\"call\":\"apply_action\",\"state\":[");
    for (const char *p = cells; *p; p++) putchar(*p == ' ' ? ',' : *p);
    printf("],\"action\":%ld}\n", action);
    fflush(stdout);
    if (!read_line(line)) exit(0);
    const char *at = strstr(line, "\"captured\":");
    if (strncmp(line, "{\"ok\":true", 10) != 0 || !at) {
        fprintf(stderr, "greedy.c: unexpected answer %.200s\n", line);
        return -1;
    }
    return strtol(at + strlen("\"captured\":"), NULL, 10);
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!read_line(line)) return 0; /* the stage's name */
    fprintf(stderr, "greedy.c: stage %s\n", line);
    if (!read_line(line)) return 0; /* prepare B */
    printf("ready\n");
    fflush(stdout);
    while (read_line(line)) {
        if (strcmp(line, "quit") == 0) break;
        if (strncmp(line, "start ", 6) == 0) continue;
        if (strcmp(line, "end of game") == 0) { read_line(line); continue; }
        if (strncmp(line, "observe ", 8) == 0) { /* a hidden stage, the opponent's turn: nothing to think */
            printf("ponder\n");
            fflush(stdout);
            continue;
        }
        strcpy(state, line);
        if (!read_line(actions)) break;
        long best = 0, most = -2;
        char *p = actions, *end;
        for (long action = strtol(p, &end, 10); end != p; p = end, action = strtol(p, &end, 10)) {
            long n = captured(state, action);
            if (n > most) { most = n; best = action; }
        }
        printf("%ld\n", best);
        fflush(stdout);
    }
    return 0;
}
