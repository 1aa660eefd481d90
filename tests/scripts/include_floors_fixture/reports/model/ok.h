// A model header a renderer may include.
#pragma once
