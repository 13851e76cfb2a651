"""The HTTP binding's adapter, ``xrgen_runtime.bindings.http.adapter`` (imports its client
library): see its documentation."""

from ..bindings.http.adapter import AsgiReceiver as AsgiReceiver
from ..bindings.http.adapter import AsyncHttpSender as AsyncHttpSender
from ..bindings.http.adapter import HttpPullReceiver as HttpPullReceiver
from ..bindings.http.adapter import HttpSender as HttpSender
from ..bindings.http.adapter import NotConnected as NotConnected
from ..bindings.http.adapter import from_response as from_response

__all__ = [
    "AsgiReceiver",
    "AsyncHttpSender",
    "HttpPullReceiver",
    "HttpSender",
    "NotConnected",
    "from_response",
]
