/* CheckerBoard's engine API as the test programs need it (written from its
 * cb_api_reference.htm and cb_interface.h): piece codes, getmove's info bits, struct CBmove. */
#ifndef CB_API_H
#define CB_API_H

#define CB_WHITE 1
#define CB_BLACK 2
#define CB_MAN 4
#define CB_KING 8
#define CB_RESET_MOVES 1
#define CB_EXACT_TIME 2

struct coor { int x, y; };

/* 268 bytes: path[0] is not used; del and delpiece list the captured pieces. */
struct CBmove {
	int jumps, newpiece, oldpiece;
	struct coor from, to;
	struct coor path[12];
	struct coor del[12];
	int delpiece[12];
};
_Static_assert(sizeof(struct CBmove) == 268, "struct CBmove is 268 bytes, as CheckerBoard's");

#endif
