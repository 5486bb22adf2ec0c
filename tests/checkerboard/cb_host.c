/* A small CheckerBoard host for the tests: loads an engine library and calls it the way
 * CheckerBoard does (its CheckerBoard.c, utility.c and fen.c, read for the call sequence; no
 * code of it here), printing one tab-separated line per call for tests/checkerboard.rs.
 *
 *   cb_host LIB GAMETYPE MAXTIME commands CMD...   enginecommand each CMD
 *   cb_host LIB GAMETYPE MAXTIME selfplay PLIES     the engine plays both sides from the start
 *   cb_host LIB GAMETYPE MAXTIME positions          one getmove per FEN on stdin
 *   cb_host LIB GAMETYPE MAXTIME playnow SECONDS [CMD...]   getmove(maxtime 1000), *playnow set
 *                                                   after SECONDS (each CMD sent first)
 *   cb_host LIB GAMETYPE MAXTIME clock REMAINING INCREMENT [CMD...]   getmove with the
 *                                                   incremental-time bits (each CMD sent first)
 *   cb_host LIB GAMETYPE MAXTIME bad                getmove/enginecommand/islegal with bad input
 *   cb_host LIB GAMETYPE MAXTIME islegal FROM TO FEN
 *
 * Output lines:
 *   command <TAB> CMD <TAB> VALUE <TAB> REPLY            (newlines of REPLY as '|')
 *   move <TAB> BEFORE <TAB> AFTER <TAB> CBMOVE <TAB> DOMOVE_OK <TAB> VALUE <TAB> MS <TAB> STATUS
 *   result <TAB> WHAT <TAB> VALUE <TAB> MS <TAB> STATUS
 * FENs in CheckerBoard's square numbers for GAMETYPE; CBMOVE as F-T or FxT:C1,C2 (captured
 * squares sorted); DOMOVE_OK is 1 when CheckerBoard's domove() with the CBmove on BEFORE gives
 * AFTER. At start it sends what CheckerBoard sends when it loads an engine (name, get book,
 * get movelist B:W1:B, get gametype) and "set gametype" when the engine plays another type.
 * Exit code 0, or 2 on bad arguments or a library without getmove/enginecommand.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cb_api.h"

typedef int (*getmove_fn)(int board[8][8], int color, double maxtime, char str[1024],
			  int *playnow, int info, int moreinfo, struct CBmove *move);
typedef int (*enginecommand_fn)(const char *command, char reply[1024]);
typedef int (*islegal_fn)(int board[8][8], int color, int from, int to, struct CBmove *move);

static getmove_fn getmove;
static enginecommand_fn enginecommand;
static islegal_fn islegal;
static int gametype;
static double maxtime;

/* The square number of (x, y) in the game type (the API's coorstonumber). */
static int number(int x, int y)
{
	switch (gametype) {
	case 22: return 1 + 4 * y + x / 2;
	case 24: return 1 + 4 * (7 - y) + (7 - x) / 2;
	case 29: return 32 - 4 * y - x / 2;
	default: return 4 * (y + 1) - x / 2;
	}
}

static int coords(int n, int *x, int *y)
{
	for (int j = 0; j < 8; j++)
		for (int i = 0; i < 8; i++)
			if ((i + j) % 2 == 0 && number(i, j) == n) {
				*x = i;
				*y = j;
				return 1;
			}
	return 0;
}

static int start_color(void)
{
	return gametype == 21 ? CB_BLACK : CB_WHITE;
}

static void start_board(int b[8][8])
{
	memset(b, 0, 64 * sizeof(int));
	for (int y = 0; y < 8; y++)
		for (int x = 0; x < 8; x++)
			if ((x + y) % 2 == 0) {
				if (y <= 2)
					b[x][y] = CB_BLACK | CB_MAN;
				else if (y >= 5)
					b[x][y] = CB_WHITE | CB_MAN;
			}
}

static void board_fen(int b[8][8], int color, char *out)
{
	char *p = out;
	p += sprintf(p, "%c", color == CB_BLACK ? 'B' : 'W');
	for (int side = CB_WHITE; side <= CB_BLACK; side++) {
		p += sprintf(p, ":%c", side == CB_WHITE ? 'W' : 'B');
		int first = 1;
		for (int y = 0; y < 8; y++)
			for (int x = 7; x >= 0; x--) {
				if ((b[x][y] & (CB_WHITE | CB_BLACK)) != side)
					continue;
				p += sprintf(p, "%s%s%d", first ? "" : ",", (b[x][y] & CB_KING) ? "K" : "",
					     number(x, y));
				first = 0;
			}
	}
}

/* Reads "B:W21,K22:B1-12" into a board; 0 on a bad FEN. */
static int read_fen(const char *fen, int b[8][8], int *color)
{
	memset(b, 0, 64 * sizeof(int));
	if (fen[0] != 'B' && fen[0] != 'W')
		return 0;
	*color = fen[0] == 'B' ? CB_BLACK : CB_WHITE;
	int side = 0;
	const char *p = fen + 1;
	while (*p) {
		if (*p == ':' || *p == ',') {
			p++;
			continue;
		}
		if (*p == 'W' || *p == 'B') {
			side = *p == 'W' ? CB_WHITE : CB_BLACK;
			p++;
			continue;
		}
		int piece = CB_MAN;
		if (*p == 'K') {
			piece = CB_KING;
			p++;
		}
		char *end;
		long low = strtol(p, &end, 10), high = low;
		if (end == p || !side)
			return 0;
		p = end;
		if (*p == '-') {
			high = strtol(p + 1, &end, 10);
			p = end;
		}
		for (long n = low; n <= high; n++) {
			int x, y;
			if (!coords((int)n, &x, &y))
				return 0;
			b[x][y] = side | piece;
		}
	}
	return 1;
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000.0 + t.tv_nsec / 1e6;
}

static void clean(char *text)
{
	for (; *text; text++)
		if (*text == '\n' || *text == '\t' || *text == '\r')
			*text = '|';
}

static int command(const char *cmd, char *reply)
{
	char local[1024];
	if (!reply)
		reply = local;
	reply[0] = 0;
	int value = enginecommand(cmd, reply);
	char shown[1024];
	snprintf(shown, sizeof shown, "%s", reply);
	clean(shown);
	printf("command\t%s\t%d\t%s\n", cmd, value, shown);
	fflush(stdout);
	return value;
}

static void domove(const struct CBmove *m, int b[8][8])
{
	b[m->from.x][m->from.y] = 0;
	b[m->to.x][m->to.y] = m->newpiece;
	for (int i = 0; i < m->jumps && i < 12; i++)
		b[m->del[i].x][m->del[i].y] = 0;
}

static void undomove(const struct CBmove *m, int b[8][8])
{
	b[m->to.x][m->to.y] = 0;
	b[m->from.x][m->from.y] = m->oldpiece;
	for (int i = 0; i < m->jumps && i < 12; i++)
		b[m->del[i].x][m->del[i].y] = m->delpiece[i];
}

static int in_board(struct coor c)
{
	return c.x >= 0 && c.x < 8 && c.y >= 0 && c.y < 8;
}

static int compare_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void describe(const struct CBmove *m, char *out)
{
	if (!in_board(m->from) || !in_board(m->to) || m->jumps < 0 || m->jumps > 12) {
		sprintf(out, "bad");
		return;
	}
	int from = number(m->from.x, m->from.y), to = number(m->to.x, m->to.y);
	if (m->jumps == 0) {
		sprintf(out, "%d-%d", from, to);
		return;
	}
	int taken[12];
	for (int i = 0; i < m->jumps; i++)
		taken[i] = in_board(m->del[i]) ? number(m->del[i].x, m->del[i].y) : 0;
	qsort(taken, m->jumps, sizeof(int), compare_int);
	char *p = out + sprintf(out, "%dx%d:", from, to);
	for (int i = 0; i < m->jumps; i++)
		p += sprintf(p, "%s%d", i ? "," : "", taken[i]);
}

/* CheckerBoard's move conversion: a capture, a man move or a crowning. */
static int is_conversion(const struct CBmove *m)
{
	return m->jumps > 0 || m->oldpiece != m->newpiece || !(m->oldpiece & CB_KING);
}

/* One getmove as CheckerBoard makes it, and its line. Returns 0 when the engine made no move
 * (the board came back unchanged). */
static int one_move(int b[8][8], int color, int info, const char *gamehist, struct CBmove *out)
{
	int before[8][8], playnow = 0;
	char status[1024] = "", before_fen[256], after_fen[256], move_text[128];
	struct CBmove move;
	memset(&move, 0, sizeof move);
	if (gamehist)
		command(gamehist, NULL);
	memcpy(before, b, sizeof before);
	double started = now_ms();
	int value = getmove(b, color, maxtime, status, &playnow, info, 0, &move);
	double ms = now_ms() - started;
	int check[8][8];
	memcpy(check, before, sizeof check);
	describe(&move, move_text);
	int ok = 0;
	if (strcmp(move_text, "bad") != 0) {
		domove(&move, check);
		ok = memcmp(check, b, sizeof check) == 0;
	}
	board_fen(before, color, before_fen);
	board_fen(b, color ^ 3, after_fen);
	clean(status);
	printf("move\t%s\t%s\t%s\t%d\t%d\t%.0f\t%s\n", before_fen, after_fen, move_text, ok, value, ms,
	       status);
	fflush(stdout);
	if (out)
		*out = move;
	return memcmp(before, b, sizeof before) != 0;
}

/* "set gamehist FEN MOVES" as CheckerBoard's send_game_history() builds it: the king moves
 * since the last conversion are taken back on a copy of the board. */
static void game_history(struct CBmove *moves, int count, int b[8][8], int color, char *out)
{
	int board[8][8], back = 0;
	memcpy(board, b, sizeof board);
	while (back < count && !is_conversion(&moves[count - 1 - back])) {
		undomove(&moves[count - 1 - back], board);
		color ^= 3;
		back++;
	}
	char fen[256];
	board_fen(board, color, fen);
	char *p = out + sprintf(out, "set gamehist %s", fen);
	for (int i = count - back; i < count; i++)
		p += sprintf(p, " %d-%d", number(moves[i].from.x, moves[i].from.y),
			     number(moves[i].to.x, moves[i].to.y));
}

static void selfplay(int plies)
{
	int b[8][8], color = start_color();
	static struct CBmove moves[1000];
	static char gamehist[16384];
	start_board(b);
	for (int ply = 0; ply < plies && ply < 1000; ply++) {
		game_history(moves, ply, b, color, gamehist);
		int info = CB_EXACT_TIME | (ply == 0 ? CB_RESET_MOVES : 0);
		if (!one_move(b, color, info, gamehist, &moves[ply]))
			break;
		color ^= 3;
	}
}

static void positions(void)
{
	char line[1024];
	while (fgets(line, sizeof line, stdin)) {
		line[strcspn(line, "\r\n")] = 0;
		if (!line[0])
			continue;
		int b[8][8], color;
		if (!read_fen(line, b, &color)) {
			printf("result\tbad fen\t%s\t0\t\n", line);
			continue;
		}
		char gamehist[1100];
		snprintf(gamehist, sizeof gamehist, "set gamehist %s", line);
		one_move(b, color, CB_RESET_MOVES | CB_EXACT_TIME, gamehist, NULL);
	}
}

struct later { int *flag; double seconds; };

static void *press_play(void *arg)
{
	struct later *later = arg;
	usleep((useconds_t)(later->seconds * 1e6));
	/* What CheckerBoard's Play! button does: a plain store. */
	*(volatile int *)later->flag = 1;
	return NULL;
}

static void playnow_test(double seconds)
{
	int b[8][8], playnow = 0;
	char status[1024] = "";
	struct CBmove move;
	start_board(b);
	struct later later = { &playnow, seconds };
	pthread_t thread;
	pthread_create(&thread, NULL, press_play, &later);
	double started = now_ms();
	int value = getmove(b, start_color(), 1000.0, status, &playnow, CB_RESET_MOVES, 0, &move);
	double ms = now_ms() - started;
	pthread_join(thread, NULL);
	int start[8][8];
	start_board(start);
	clean(status);
	printf("result\tplaynow moved=%d\t%d\t%.0f\t%s\n", memcmp(start, b, sizeof b) != 0, value, ms,
	       status);
}

static void clock_test(double remaining, double increment)
{
	int b[8][8], playnow = 0;
	char status[1024] = "";
	struct CBmove move;
	start_board(b);
	/* Units of 0.001 s (info bits 2-3 = 1), remaining in the high 16 bits. */
	int info = CB_RESET_MOVES | (1 << 2);
	int moreinfo = ((int)(remaining * 1000) << 16) | (int)(increment * 1000);
	double started = now_ms();
	int value = getmove(b, start_color(), 100.0, status, &playnow, info, moreinfo, &move);
	double ms = now_ms() - started;
	int start[8][8];
	start_board(start);
	clean(status);
	printf("result\tclock moved=%d\t%d\t%.0f\t%s\n", memcmp(start, b, sizeof b) != 0, value, ms,
	       status);
}

static void bad_input(void)
{
	int b[8][8], playnow = 0;
	char status[1024];
	struct CBmove move;
	struct { const char *what; int color; int x, y, piece; } cases[] = {
		{ "colour 7", 7, 0, 0, -1 },
		{ "piece code 3", CB_BLACK, 0, 0, 3 },
		{ "light square", CB_BLACK, 1, 0, CB_BLACK | CB_MAN },
		{ "thirteen men", CB_BLACK, 3, 3, CB_BLACK | CB_KING },
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		start_board(b);
		if (cases[i].piece >= 0)
			b[cases[i].x][cases[i].y] = cases[i].piece;
		int copy[8][8];
		memcpy(copy, b, sizeof copy);
		strcpy(status, "");
		int value = getmove(b, cases[i].color, maxtime, status, &playnow, 0, 0, &move);
		clean(status);
		printf("result\t%s unchanged=%d\t%d\t0\t%s\n", cases[i].what,
		       memcmp(copy, b, sizeof b) == 0, value, status);
	}
	strcpy(status, "");
	int value = getmove(NULL, CB_BLACK, maxtime, status, &playnow, 0, 0, &move);
	printf("result\tnull board\t%d\t0\t%s\n", value, status);
	start_board(b);
	value = getmove(b, start_color(), maxtime, NULL, NULL, 0, 0, NULL);
	printf("result\tnull buffers\t%d\t0\t\n", value);
	char reply[1024] = "unchanged";
	value = enginecommand(NULL, reply);
	printf("result\tnull command\t%d\t0\t%s\n", value, reply);
	value = enginecommand("name", NULL);
	printf("result\tnull reply\t%d\t0\t\n", value);
	if (islegal) {
		value = islegal(NULL, CB_BLACK, 9, 13, &move);
		printf("result\tislegal null board\t%d\t0\t\n", value);
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: cb_host LIB GAMETYPE MAXTIME MODE [ARGS]\n");
		return 2;
	}
	void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "cb_host: dlopen: %s\n", dlerror());
		return 2;
	}
	getmove = (getmove_fn)dlsym(lib, "getmove");
	enginecommand = (enginecommand_fn)dlsym(lib, "enginecommand");
	islegal = (islegal_fn)dlsym(lib, "islegal");
	if (!getmove || !enginecommand) {
		fprintf(stderr, "cb_host: %s lacks getmove or enginecommand\n", argv[1]);
		return 2;
	}
	gametype = atoi(argv[2]);
	maxtime = atof(argv[3]);
	const char *mode = argv[4];

	char reply[1024], cmd[64];
	command("name", NULL);
	command("get book", NULL);
	command("get movelist B:W1:B", NULL);
	if (!command("get gametype", reply) || atoi(reply) != gametype) {
		snprintf(cmd, sizeof cmd, "set gametype %d", gametype);
		command(cmd, NULL);
	}

	if (!strcmp(mode, "commands")) {
		for (int i = 5; i < argc; i++)
			command(argv[i], NULL);
	} else if (!strcmp(mode, "selfplay") && argc > 5) {
		selfplay(atoi(argv[5]));
	} else if (!strcmp(mode, "positions")) {
		positions();
	} else if (!strcmp(mode, "playnow") && argc > 5) {
		for (int i = 6; i < argc; i++)
			command(argv[i], NULL);
		playnow_test(atof(argv[5]));
	} else if (!strcmp(mode, "clock") && argc > 6) {
		for (int i = 7; i < argc; i++)
			command(argv[i], NULL);
		clock_test(atof(argv[5]), atof(argv[6]));
	} else if (!strcmp(mode, "bad")) {
		bad_input();
	} else if (!strcmp(mode, "islegal") && argc > 7 && islegal) {
		int b[8][8], color;
		struct CBmove move;
		char text[128];
		memset(&move, 0, sizeof move);
		if (!read_fen(argv[7], b, &color))
			return 2;
		int value = islegal(b, color, atoi(argv[5]), atoi(argv[6]), &move);
		describe(&move, text);
		printf("result\tislegal %s\t%d\t0\t\n", value ? text : "-", value);
	} else {
		fprintf(stderr, "cb_host: unknown mode or missing arguments: %s\n", mode);
		return 2;
	}
	fflush(stdout);
	return 0;
}
