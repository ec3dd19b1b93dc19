#include "results-xml/model/result_file.h"
