// Placeholder: the composite.xml model lands with issue 2.
#pragma once
