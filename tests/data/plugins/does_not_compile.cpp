// A plug-in with a syntax error: its compiler output is part of the error.
#include <ktune/plugin.hpp>
this is not C++;
