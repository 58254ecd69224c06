package io.jtrace.ipc;

import static io.jtrace.ipc.EchoService.assertEchoes;
import static io.jtrace.ipc.FrameDecoderTest.concat;
import static io.jtrace.ipc.FrameDecoderTest.header;
import static io.jtrace.ipc.IpcCallTest.awaitTrue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.IPCFrame;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host as a peer sees it on the wire (Perfetto's protocol), and what a misbehaving peer costs: only
 * its own connection.
 */
class IpcWireTest {
    @TempDir
    Path directory;

    private final EchoService echo = new EchoService();
    private IpcHost host;

    @BeforeEach
    void start() throws Exception {
        host = IpcHost.listen(directory.resolve("wire.sock"), List.of(new EchoService("Other"), echo), "wire");
    }

    @AfterEach
    void stop() {
        host.close();
    }

    static IPCFrame bindFrame(long requestId, String name) {
        return IPCFrame.newBuilder().setRequestId(requestId)
                .setMsgBindService(IPCFrame.BindService.newBuilder().setServiceName(name)).build();
    }

    static IPCFrame invokeFrame(long requestId, int serviceId, int methodId, boolean dropReply) {
        return IPCFrame.newBuilder().setRequestId(requestId)
                .setMsgInvokeMethod(IPCFrame.InvokeMethod.newBuilder()
                        .setServiceId(serviceId)
                        .setMethodId(methodId)
                        .setArgsProto(EchoService.message("raw", (int) requestId).toByteString())
                        .setDropReply(dropReply))
                .build();
    }

    @Test
    void bindReplyGivesTheServiceIdAndMethodIdsFromOne() throws Exception {
        try (RawPeer peer = new RawPeer(host.socketPath())) {
            peer.send(bindFrame(17, EchoService.NAME));
            IPCFrame reply = peer.read();
            assertEquals(17, reply.getRequestId());
            IPCFrame.BindServiceReply bind = reply.getMsgBindServiceReply();
            assertTrue(bind.getSuccess());
            assertEquals(2, bind.getServiceId(), "the second service of the host");
            for (int i = 0; i < EchoService.METHODS.size(); i++) {
                assertEquals(i + 1, bind.getMethods(i).getId());
                assertEquals(EchoService.METHODS.get(i), bind.getMethods(i).getName());
            }
            peer.send(bindFrame(18, "Missing"));
            IPCFrame missing = peer.read();
            assertEquals(18, missing.getRequestId());
            assertFalse(missing.getMsgBindServiceReply().getSuccess());
        }
    }

    @Test
    void unknownServiceOrMethodIdsAreAnsweredWithAFailedReplyAsPerfettoDoes() throws Exception {
        try (RawPeer peer = new RawPeer(host.socketPath())) {
            peer.send(bindFrame(1, EchoService.NAME));
            peer.read();
            peer.send(invokeFrame(2, 1, 1, false)); // Service 1 exists but is not bound on this connection.
            peer.send(invokeFrame(3, 99, 1, false));
            peer.send(invokeFrame(4, 2, 0, false));
            peer.send(invokeFrame(5, 2, EchoService.METHODS.size() + 1, false));
            peer.send(invokeFrame(6, 2, -1, false)); // uint32 0xFFFFFFFF
            peer.send(invokeFrame(7, 2, 1, false));
            for (long id = 2; id <= 6; id++) {
                IPCFrame reply = peer.read();
                assertEquals(id, reply.getRequestId());
                assertFalse(reply.getMsgInvokeMethodReply().getSuccess(), "request " + id);
            }
            IPCFrame ok = peer.read();
            assertEquals(7, ok.getRequestId());
            assertTrue(ok.getMsgInvokeMethodReply().getSuccess());
            assertEquals(EchoService.message("raw", 7).toByteString(), ok.getMsgInvokeMethodReply().getReplyProto());
            assertEquals(5, host.stats().failedCalls());
        }
    }

    @Test
    void aFrameThatIsNoRequestGetsARequestError() throws Exception {
        try (RawPeer peer = new RawPeer(host.socketPath())) {
            peer.send(IPCFrame.newBuilder().setRequestId(5).build());
            peer.send(IPCFrame.newBuilder().setRequestId(6)
                    .setMsgBindServiceReply(IPCFrame.BindServiceReply.newBuilder().setSuccess(true)).build());
            for (long id = 5; id <= 6; id++) {
                IPCFrame reply = peer.read();
                assertEquals(id, reply.getRequestId());
                assertEquals("unknown request", reply.getMsgRequestError().getError());
            }
            assertEquals(2, host.stats().requestErrors());
        }
    }

    @Test
    void aCallWithDropReplyRunsAndIsNotAnswered() throws Exception {
        try (RawPeer peer = new RawPeer(host.socketPath())) {
            peer.send(bindFrame(1, EchoService.NAME));
            peer.read();
            peer.send(invokeFrame(2, 2, 2, true)); // Stream, dropped: not one of its replies comes.
            peer.send(invokeFrame(3, 99, 1, true)); // Unknown service, dropped: no failure either.
            peer.send(invokeFrame(4, 2, 1, false));
            assertEquals(4, peer.read().getRequestId(), "the next frame answers request 4");
            assertEquals(2, echo.calls.get());
            assertEquals(1, host.stats().failedCalls(), "the call to an unknown service failed, unanswered");
        }
    }

    @Test
    void malformedFramesAreDroppedAndTheConnectionGoesOn() throws Exception {
        try (RawPeer peer = new RawPeer(host.socketPath())) {
            byte[] garbage = {(byte) 0xFF, (byte) 0xFF, 0x07};
            peer.write(concat(header(0), header(garbage.length), garbage));
            peer.send(bindFrame(1, EchoService.NAME));
            assertEquals(1, peer.read().getRequestId());
            assertEquals(2, host.stats().framesMalformed());
            assertEquals(1, host.stats().connectionsOpen());
        }
    }

    @Test
    void aPeerSendingAnOversizeFrameIsClosedAndTheOtherKeepsWorking() throws Exception {
        misbehaveBesideAGoodClient(peer -> peer.write(concat(header(FrameDecoder.MAX_PAYLOAD + 1), new byte[100])));
        assertEquals(1, host.stats().oversizeCloses());
    }

    @Test
    void aPeerSendingRandomBytesIsClosedAndTheOtherKeepsWorking() throws Exception {
        misbehaveBesideAGoodClient(peer -> peer.write(new byte[] {(byte) 0xDE, (byte) 0xAD, (byte) 0xBE, (byte) 0xEF, 1, 2, 3}));
        assertEquals(1, host.stats().oversizeCloses());
    }

    @Test
    void aPeerLeavingHalfAFrameIsClosedAndTheOtherKeepsWorking() throws Exception {
        misbehaveBesideAGoodClient(peer -> {
            byte[] frame = FrameDecoderTest.bytes(invokeFrame(9, 2, 1, false));
            peer.write(java.util.Arrays.copyOf(frame, frame.length / 2));
            peer.closeOutput();
        });
        assertEquals(0, host.stats().oversizeCloses());
    }

    @Test
    void aPeerThatDoesNotReadItsRepliesIsNotReadUntilItDoesAndOthersGoOn() throws Exception {
        int calls = 20;
        int repliesPerCall = 1000;
        String name = "n".repeat(1000); // Every reply is over 1 KB: one call queues over 1 MB.
        try (IpcClient good = IpcClient.connect(host.socketPath(), null); RawPeer lazy = new RawPeer(host.socketPath())) {
            ServiceProxy proxy = good.bind(EchoService.NAME).get(10, TimeUnit.SECONDS);
            lazy.send(bindFrame(1, EchoService.NAME));
            for (int i = 0; i < calls; i++) {
                lazy.send(IPCFrame.newBuilder().setRequestId(100 + i)
                        .setMsgInvokeMethod(IPCFrame.InvokeMethod.newBuilder().setServiceId(2).setMethodId(2)
                                .setArgsProto(EchoService.message(name, repliesPerCall).toByteString()))
                        .build());
            }
            awaitTrue(() -> echo.calls.get() > 0, "the lazy peer's first call is served");
            for (int i = 0; i < 20; i++) {
                assertEchoes(proxy, "good", i);
            }
            int lazyCallsServed = echo.calls.get() - 20;
            assertTrue(lazyCallsServed < calls, "the host stopped reading the lazy peer: it served " + lazyCallsServed);
            assertTrue(echo.bindings.get(1).connection instanceof HostConnection lazyConnection
                    && lazyConnection.pendingBytes() >= IpcHost.READ_PAUSE_BYTES - 64 * 1024,
                    "what the lazy peer has not read is queued, up to the pause threshold and a call's worth more");
            assertEquals(1, lazy.read().getRequestId(), "the bind reply comes first");
            for (int call = 0; call < calls; call++) {
                for (int reply = 1; reply <= repliesPerCall; reply++) {
                    IPCFrame frame = lazy.read();
                    assertEquals(100 + call, frame.getRequestId());
                    assertEquals(reply < repliesPerCall, frame.getMsgInvokeMethodReply().getHasMore());
                }
            }
            assertEquals(20 + calls, echo.calls.get(), "once it reads, every call of the lazy peer is served");
        }
    }

    interface Misbehaviour {
        void on(RawPeer peer) throws Exception;
    }

    /** A good client and a bad peer, both bound; the bad one misbehaves; only it is closed and unbound. */
    private void misbehaveBesideAGoodClient(Misbehaviour misbehaviour) throws Exception {
        try (IpcClient good = IpcClient.connect(host.socketPath(), null); RawPeer bad = new RawPeer(host.socketPath())) {
            ServiceProxy proxy = good.bind(EchoService.NAME).get(10, TimeUnit.SECONDS);
            bad.send(bindFrame(1, EchoService.NAME));
            bad.read();
            misbehaviour.on(bad);
            assertTrue(bad.closedByHost(), "the host closes the misbehaving peer");
            awaitTrue(() -> echo.unbinds.get() == 1, "the bad peer's binding is unbound");
            for (int i = 0; i < 50; i++) {
                assertEchoes(proxy, "good", i);
            }
            assertTrue(good.isConnected());
            assertEquals(1, host.stats().connectionsOpen());
            assertEquals(1, echo.bindings.stream().filter(b -> b.unbound.get() == 1).count());
        }
    }
}
