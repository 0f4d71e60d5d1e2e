from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticStorage(CompressedManifestStaticFilesStorage):
    """Hashed, compressed static files once collectstatic has run (make run does it).

    Before that (tests, a fresh checkout), a file keeps its plain name and
    WhiteNoise serves it from the finders, instead of the page failing.
    """

    manifest_strict = False

    def stored_name(self, name):
        try:
            return super().stored_name(name)
        except ValueError:
            return name
