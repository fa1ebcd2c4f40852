"""A worker asked to stop (SIGTERM: ``docker stop``, systemd, Ctrl-C) exits in about a second, not a minute.

rq listens for its commands (stop a job, shut down) on a Redis pub/sub channel, read by a thread that rq
starts with ``sleep_time=60``. At shutdown rq unsubscribes and then stops that thread, and since redis-py
8.2 ``PubSubWorkerThread.stop()`` waits for the thread to end: an unsubscribed thread sits in
``get_message`` for up to ``sleep_time``, so an idle worker took up to 60 s to exit after its warm shutdown
(measured here: SIGTERM to exit 15 s and more, until the caller's SIGKILL). ``docker stop`` kills after
10 s, so every stop was a kill. Waking the thread every :data:`PUBSUB_WAKE` seconds bounds that wait; it
costs one poll of an idle socket per second.

Why a copy of rq's ``subscribe`` (three calls) rather than a patch: rq takes no option for that sleep, and
re-stating its subscription with the shorter wake keeps rq's own channel, handler and exception handler.
"""

from __future__ import annotations

__all__ = ["PUBSUB_WAKE", "PromptStopMixin"]

#: Longest wait, in seconds, of the pub/sub thread between two looks at whether it should stop.
PUBSUB_WAKE = 1.0


class PromptStopMixin:
    """rq's command subscription, its thread waking every :data:`PUBSUB_WAKE` s instead of every 60 s."""

    def subscribe(self) -> None:
        self.log.info("Worker %s: subscribing to channel %s", self.name, self.pubsub_channel_name)
        self.pubsub = self.connection.pubsub()
        self.pubsub.subscribe(**{self.pubsub_channel_name: self.handle_payload})
        self.pubsub_thread = self.pubsub.run_in_thread(sleep_time=PUBSUB_WAKE, daemon=True,
                                                       exception_handler=self._pubsub_exception_handler)
