# gunicorn -c gunicorn.conf.py -b 127.0.0.1:8000 wsgi:app
preload_app = True  # import wsgi.py (and build the sampler) once, in the master
workers = 4  # each worker: its own watcher thread, its own rate-limit budgets
