"""The ``bitsite:`` endpoint for daphne's ``-e`` option: TCP, with connections admitted
per client address (bitsite/connections.py says why and how).

    daphne -e bitsite:port=8000:interface=127.0.0.1 bitsite.asgi:application

Twisted finds endpoint plugins in every ``twisted/plugins/`` folder on ``sys.path``
(daphne puts the current folder there); this folder has no ``__init__.py`` on purpose.
Kept to the plugin object: the work, and its imports, live in bitsite/connections.py.
"""

from twisted.internet.interfaces import IStreamServerEndpointStringParser
from twisted.plugin import IPlugin
from zope.interface import implementer


@implementer(IPlugin, IStreamServerEndpointStringParser)
class BitsiteEndpointParser:
    prefix = "bitsite"

    def parseStreamServer(self, reactor, *args, **kwargs):
        from bitsite.connections import endpoint

        return endpoint(reactor, *args, **kwargs)


bitsite_endpoint = BitsiteEndpointParser()
