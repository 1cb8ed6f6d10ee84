#include "axiom_plugin.h"
