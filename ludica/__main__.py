import sys

from ludica.cli import main

sys.exit(main())
