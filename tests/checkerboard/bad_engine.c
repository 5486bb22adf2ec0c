/* A broken CheckerBoard engine library for tests/checkerboard.rs: the referee of
 * `damka match proto=cb` must forfeit each way it breaks the rules, and go on.
 *
 * enginecommand: "name" (bad engine), "get gametype" (21, or what "set gametype N" set),
 * "set mode M" with M one of
 *   teleport  getmove moves its first piece to the first empty dark square (no legal move)
 *   same      getmove returns the board unchanged
 *   cbmove    getmove returns the board unchanged and a CBmove from a square to itself
 *   hang      getmove never returns, whatever *playnow says
 *   crash     getmove aborts the process
 * Everything else answers 0 and "?".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cb_api.h"

static char mode[64] = "teleport";
static int gametype = 21;

int enginecommand(const char *command, char reply[1024])
{
	char word[64], what[64], value[64];
	int n = sscanf(command, "%63s %63s %63s", word, what, value);
	if (n == 1 && !strcmp(word, "name")) {
		strcpy(reply, "bad engine");
		return 1;
	}
	if (n == 2 && !strcmp(word, "get") && !strcmp(what, "gametype")) {
		sprintf(reply, "%d", gametype);
		return 1;
	}
	if (n == 3 && !strcmp(word, "set") && !strcmp(what, "gametype")) {
		gametype = atoi(value);
		sprintf(reply, "gametype %d", gametype);
		return 1;
	}
	if (n == 3 && !strcmp(word, "set") && !strcmp(what, "mode")) {
		snprintf(mode, sizeof mode, "%s", value);
		sprintf(reply, "mode %s", mode);
		return 1;
	}
	strcpy(reply, "?");
	return 0;
}

int getmove(int board[8][8], int color, double maxtime, char str[1024], int *playnow, int info,
	    int moreinfo, struct CBmove *move)
{
	(void)maxtime;
	(void)playnow;
	(void)info;
	(void)moreinfo;
	strcpy(str, mode);
	memset(move, 0, sizeof *move);
	if (!strcmp(mode, "hang")) {
		for (;;)
			usleep(10000);
	}
	if (!strcmp(mode, "crash"))
		abort();
	if (!strcmp(mode, "cbmove")) {
		for (int y = 0; y < 8; y++)
			for (int x = 0; x < 8; x++)
				if (board[x][y] & color) {
					move->from.x = move->to.x = x;
					move->from.y = move->to.y = y;
					move->oldpiece = move->newpiece = board[x][y];
					return 3;
				}
	}
	if (!strcmp(mode, "teleport")) {
		int fx = -1, fy = -1;
		for (int y = 0; y < 8 && fx < 0; y++)
			for (int x = 0; x < 8; x++)
				if (board[x][y] & color) {
					fx = x;
					fy = y;
					break;
				}
		for (int y = 7; y >= 0 && fx >= 0; y--)
			for (int x = 0; x < 8; x++)
				if ((x + y) % 2 == 0 && board[x][y] == 0 && (y < fy - 2 || y > fy + 2)) {
					board[x][y] = board[fx][fy];
					board[fx][fy] = 0;
					return 3;
				}
	}
	return 3;
}
