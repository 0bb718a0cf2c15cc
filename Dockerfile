# The build context may hold what must never reach an image: an .env file (with SECRET_KEY),
# the embedded services' data (var/), a virtualenv. This stage copies it and drops them; the
# image below takes the rest from here, so they are in none of its layers.
FROM python:3.11-slim AS source
COPY . /src
RUN cd /src && rm -rf .env .env.* *.env var .venv .git staticfiles bench/results .pytest_cache .ruff_cache .hypothesis

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY --from=source /src /app
# collectstatic reads the settings, which need no service: outside production they fall back
# to the development key published in the source, which a production start refuses. The image
# holds no key, and no embedded database is started for the build (HANDBOOK_EMBEDDED=0).
RUN HANDBOOK_PRODUCTION=false HANDBOOK_EMBEDDED=0 python manage.py collectstatic --noinput
# The image runs in production mode: it refuses to start without a generated SECRET_KEY,
# with DEBUG on, or with the development key.
ENV HANDBOOK_PRODUCTION=true
RUN useradd --create-home handbook
USER handbook
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--access-logfile", "-"]
