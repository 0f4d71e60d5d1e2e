import rjsmin
from django.core.files.base import ContentFile
from whitenoise.storage import CompressedManifestStaticFilesStorage

OWN_SCRIPTS = "site/"  # static/site/: the site's own scripts (vendor/ comes minified)


class StaticStorage(CompressedManifestStaticFilesStorage):
    """Hashed, compressed static files once collectstatic has run (make run does it).

    The site's own scripts are stored minified (rjsmin: comments and spaces out; the
    source in static/site/ keeps its comments), so a page ships no comments; their
    hashed names and compressed copies are made from the minified text.

    Before collectstatic (tests, a fresh checkout), a file keeps its plain name and
    WhiteNoise serves it from the finders, instead of the page failing.
    """

    manifest_strict = False

    def stored_name(self, name):
        try:
            return super().stored_name(name)
        except ValueError:
            return name

    def post_process(self, paths, dry_run=False, **options):
        """Before the hashing and compressing: the collected copies of the site's own
        scripts minified in place, and hashed and compressed from there."""
        if not dry_run:
            paths = dict(paths)
            for name, (storage, path) in list(paths.items()):
                if name.startswith(OWN_SCRIPTS) and name.endswith(".js"):
                    with storage.open(path) as source:
                        text = source.read().decode("utf-8")
                    self.delete(name)
                    self.save(name, ContentFile(rjsmin.jsmin(text).encode("utf-8")))
                    paths[name] = (self, name)
        yield from super().post_process(paths, dry_run=dry_run, **options)
