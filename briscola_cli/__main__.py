"""``python -m briscola_cli``: the ``briscola`` command without its installed script."""

import sys

from .main import main

sys.exit(main())
