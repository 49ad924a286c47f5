import sys

from ember.connect import main

sys.exit(main())
