import gc
import os

import numpy  # noqa: F401 - loads the BLAS library, for threadpool_limits below to find it
from django.core.wsgi import get_wsgi_application
from threadpoolctl import threadpool_limits

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# Everything loaded so far lives as long as the process: freezing it keeps the cyclic garbage
# collector from walking it again on every full collection (~20 ms each on 2 cores, and a search
# allocates enough to trigger one every few requests).
gc.freeze()

# One BLAS thread per request: the web server already runs requests side by side on every core, and
# a search's small matrix products (the query against the sentence sets, word translation) gained
# nothing from BLAS threads, whose spinning after each product cost more CPU than the search itself
# (measured at 100k chunks: 30-50 ms of CPU a search, 10-15 ms with one thread). The Celery worker,
# whose batch work is worth threads, keeps the library's default.
threadpool_limits(limits=1, user_api="blas")
