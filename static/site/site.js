// bitsite's own JavaScript: a few small behaviours; everything else lives on the server.
