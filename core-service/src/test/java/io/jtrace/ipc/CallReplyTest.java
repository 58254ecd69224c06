package io.jtrace.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.MessageLite;
import io.jtrace.protos.IPCFrame;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** One call's replies as they are queued for the socket: nothing of the call is ever queued after its last reply. */
class CallReplyTest {
    private final HostCounters counters = new HostCounters();
    private final HostConnection connection = new HostConnection(1, System.getProperty("user.name"),
            new ServiceTable(List.of(new EchoService())), PeerIdentityResolver.system(), counters, c -> { });

    /** The frames queued on the connection so far, decoded as the client would. */
    private List<IPCFrame> queued() {
        List<IPCFrame> frames = new ArrayList<>();
        FrameDecoder decoder = new FrameDecoder();
        FrameDecoder.Sink sink = new FrameDecoder.Sink() {
            @Override
            public void frame(IPCFrame frame) {
                frames.add(frame);
            }

            @Override
            public void malformed(String reason) {
                throw new AssertionError("a malformed frame was queued: " + reason);
            }
        };
        ByteBuffer frame;
        while ((frame = connection.outbox().poll()) != null) {
            assertTrue(decoder.feed(frame, sink));
        }
        return frames;
    }

    /**
     * A message whose serialization waits: {@code encoding} opens when a thread starts serializing it,
     * which then waits for {@code release}.
     */
    private static MessageLite slowToEncode(MessageLite message, CountDownLatch encoding, CountDownLatch release) {
        return (MessageLite) Proxy.newProxyInstance(MessageLite.class.getClassLoader(), new Class<?>[] {MessageLite.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("toByteString")) {
                        encoding.countDown();
                        assertTrue(release.await(10, TimeUnit.SECONDS), "released");
                    }
                    try {
                        return method.invoke(message, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Test
    void aStreamReplyStillEncodingWhenTheLastReplyIsQueuedIsDropped() throws Exception {
        CallReply reply = new CallReply(connection, 7, "Echo.Stream", false);
        CountDownLatch encoding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread streamer = new Thread(() -> reply.stream(slowToEncode(EchoService.message("s", 1), encoding, release)), "streamer");
        streamer.start();
        assertTrue(encoding.await(10, TimeUnit.SECONDS), "the stream reply is being encoded");
        // On its own thread, so that a complete() waiting for the stream fails this test instead of hanging it.
        Thread completer = new Thread(() -> reply.complete(EchoService.message("last", 2)), "completer");
        completer.start();
        completer.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(completer.isAlive(), "complete() does not wait for another thread's reply being encoded");
        release.countDown();
        streamer.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(streamer.isAlive());

        List<IPCFrame> frames = queued();
        assertEquals(1, frames.size(), "only the last reply: the stream reply came after it " + frames);
        IPCFrame.InvokeMethodReply last = frames.get(0).getMsgInvokeMethodReply();
        assertEquals(7, frames.get(0).getRequestId());
        assertFalse(last.getHasMore());
        assertEquals(EchoService.message("last", 2).toByteString(), last.getReplyProto());
    }

    @Test
    void afterTheLastReplyOrAFailureNothingMoreIsQueued() {
        CallReply completed = new CallReply(connection, 1, "Echo.Stream", false);
        completed.stream(EchoService.message("a", 1));
        completed.complete(EchoService.message("b", 2));
        completed.stream(EchoService.message("c", 3));
        completed.complete(EchoService.message("d", 4));
        completed.fail("too late");
        CallReply failed = new CallReply(connection, 2, "Echo.Stream", false);
        failed.stream(EchoService.message("e", 5));
        failed.fail("asked to");
        failed.complete(EchoService.message("f", 6));
        failed.fail("again");

        List<IPCFrame> frames = queued();
        assertEquals(4, frames.size(), frames.toString());
        assertEquals(List.of(1L, 1L, 2L, 2L), frames.stream().map(IPCFrame::getRequestId).toList());
        assertEquals(List.of(true, false, true, false), frames.stream().map(f -> f.getMsgInvokeMethodReply().getHasMore()).toList());
        assertEquals(List.of(true, true, true, false), frames.stream().map(f -> f.getMsgInvokeMethodReply().getSuccess()).toList());
        assertEquals(EchoService.message("b", 2).toByteString(), frames.get(1).getMsgInvokeMethodReply().getReplyProto());
        assertEquals(1, counters.failedCalls.get());
        assertEquals(4, counters.framesSent.get());
    }

    @Test
    void aCallThatWantsNoReplyQueuesNothing() {
        CallReply dropped = new CallReply(connection, 3, "Echo.Stream", true);
        dropped.stream(EchoService.message("a", 1));
        dropped.complete(EchoService.message("b", 2));
        dropped.fail("no one hears");
        assertEquals(List.of(), queued());
        assertEquals(0, counters.framesSent.get());
        assertEquals(1, counters.failedCalls.get(), "a failure is counted even when no one is told");
    }
}
