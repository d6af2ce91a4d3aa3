#include "stackmap.h"
int cmd_record(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return 2;
}
