#include "results-xml/result_file.h"
