import os
import sys

# Tests import the package from this checkout (or the GPU bundle's copy).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
