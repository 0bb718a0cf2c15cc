FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
RUN DATABASE_URL=postgresql://x@localhost/x REDIS_URL=redis://localhost python manage.py collectstatic --noinput
RUN useradd --create-home handbook
USER handbook
EXPOSE 8000
