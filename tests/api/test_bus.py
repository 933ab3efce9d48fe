"""api/bus.py: updates published from any thread reach the asyncio subscribers of their game,
a slow subscriber keeps the newest, closing ends every stream; the preview encodes a frame once,
and only while someone watches."""
from __future__ import annotations

import asyncio
import threading

import numpy as np

from tilecam.api.bus import Bus, BusMessage, PreviewHub


def update(game_id: int, seq: int) -> BusMessage:
    return BusMessage(game_id, seq, "update", {"seq": seq})


def test_live_bus_delivers_from_another_thread():
    async def main():
        bus = Bus(queue_size=4)
        mine, other, every = bus.subscribe(1), bus.subscribe(2), bus.subscribe(None)
        t = threading.Thread(target=lambda: [bus.publish(BusMessage(1, i, "update", {"i": i})) for i in range(3)])
        t.start()
        t.join()
        got = [await asyncio.wait_for(mine.get(), 2) for _ in range(3)]
        assert [m.seq for m in got] == [0, 1, 2]
        assert (await asyncio.wait_for(every.get(), 2)).seq == 0
        assert other.queue.empty()
        bus.close()
        assert await asyncio.wait_for(other.get(), 2) is None
    asyncio.run(main())


def test_live_bus_slow_subscriber_keeps_the_newest():
    async def main():
        bus = Bus(queue_size=2)
        sub = bus.subscribe(1)
        for i in range(5):
            bus.publish(BusMessage(1, i, "update"))
        await asyncio.sleep(0)  # let the loop run the hand-overs
        assert [(await sub.get()).seq for _ in range(2)] == [3, 4] and sub.dropped == 3
        bus.unsubscribe(sub)
        assert bus.subscribers == 0
    asyncio.run(main())


def test_closing_ends_every_stream_even_one_that_subscribes_after():
    async def run():
        bus = Bus()
        sub = bus.subscribe()
        bus.close()
        assert await asyncio.wait_for(sub.get(), 2) is None
        assert await asyncio.wait_for(bus.subscribe(3).get(), 2) is None

    asyncio.run(run())


def test_an_unsubscribed_client_is_sent_nothing():
    async def run():
        bus = Bus()
        gone, stays = bus.subscribe(1), bus.subscribe(1)
        bus.unsubscribe(gone)
        assert bus.subscribers == 1 and bus.publish(update(1, 1)) == 1 and (await stays.get()).seq == 1
        assert gone.queue.empty()

    asyncio.run(run())


def test_a_subscriber_whose_loop_is_gone_is_dropped():
    bus = Bus()

    async def subscribe():
        return bus.subscribe(1)

    asyncio.run(subscribe())  # the loop closes with the run
    assert bus.subscribers == 1 and bus.publish(update(1, 1)) == 0 and bus.subscribers == 0


def test_the_preview_encodes_only_while_watched_and_wakes_its_viewers():
    hub = PreviewHub()
    frame = np.zeros((8, 8, 3), np.uint8)
    assert hub.publish(frame) is False and hub.encoded == 0  # nobody watches: no encoding

    async def run():
        async with hub.watch() as viewer:
            assert hub.viewers == 1
            waiting = asyncio.create_task(viewer.next_frame(0, timeout=2))
            await asyncio.sleep(0.01)
            threading.Thread(target=hub.publish, args=(frame,)).start()
            index, jpeg = await waiting
            assert index == 1 and jpeg[:2] == b"\xff\xd8"  # a JPEG
            assert await viewer.next_frame(1, timeout=0.05) == (1, jpeg)  # nothing newer: the current one
            hub.close()
            assert await viewer.next_frame(1, timeout=2) == (1, None)
        assert hub.viewers == 0 and hub.encoded == 1

    asyncio.run(run())
