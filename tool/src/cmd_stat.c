#include "stackmap.h"
int cmd_stat(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return 2;
}
