"""Sessions signed in under Django's own ``ModelBackend`` name are moved to ``LocalBackend``, the
name that extends it: Django signs out a session whose backend is not in AUTHENTICATION_BACKENDS."""

from django.db import migrations

OLD, NEW = "django.contrib.auth.backends.ModelBackend", "accounts.backends.LocalBackend"


def rename_backend(apps, schema_editor):  # type: ignore[no-untyped-def]
    from django.contrib.auth import BACKEND_SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore
    from django.utils import timezone

    codec = SessionStore()
    sessions = apps.get_model("sessions", "Session").objects.using(schema_editor.connection.alias)
    for session in sessions.filter(expire_date__gt=timezone.now()).iterator(chunk_size=2000):
        data = codec.decode(session.session_data)
        if data.get(BACKEND_SESSION_KEY) == OLD:
            data[BACKEND_SESSION_KEY] = NEW
            session.session_data = codec.encode(data)
            session.save(update_fields=["session_data"])


class Migration(migrations.Migration):
    dependencies = [("accounts", "0002_sso_identity_token_address"), ("sessions", "0001_initial")]
    operations = [migrations.RunPython(rename_backend, migrations.RunPython.noop)]
