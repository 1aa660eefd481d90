// fixture: a lower floor, included from above (allowed)
#pragma once
