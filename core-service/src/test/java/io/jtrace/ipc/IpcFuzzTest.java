package io.jtrace.ipc;

import static io.jtrace.ipc.IpcCallTest.awaitTrue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.InvalidProtocolBufferException;
import io.jtrace.protos.IPCFrame;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Random and mutated frames against the host's connection logic. The seed is fixed (override with
 * {@code -Djtrace.fuzz.seed=N}) and in every failure message, so a failure reproduces.
 */
class IpcFuzzTest {
    private static final Logger LOG = LoggerFactory.getLogger(IpcFuzzTest.class);
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
    private static final long SEED = Long.getLong("jtrace.fuzz.seed", 0x1FC_F0220L);
    private static final int WELL_FRAMED = 900_000;
    private static final int TAMPERED = 100_000;
    private static final int SOCKET_FRAMES = 10_000;
    /**
     * The echo's methods minus those that make a fuzz slow rather than harsh: Huge allocates 128 KiB per
     * call, Throw logs a stack trace per call, Later keeps every call's reply for a test to give.
     * Each of them has its own test in {@link IpcCallTest}.
     */
    private static final List<String> FUZZ_METHODS = List.of("Echo", "Stream", "Fail", "Never", "CloseMe");

    @TempDir
    Path directory;

    /** The host's per-connection logic, driven without a socket, replaced whenever it closes. */
    private final class InProcessHost {
        final EchoService echo = new EchoService(EchoService.NAME, FUZZ_METHODS);
        final EchoService other = new EchoService("Other", FUZZ_METHODS);
        final ServiceTable services = new ServiceTable(List.of(echo, other));
        final PeerIdentityResolver identities = PeerIdentityResolver.system();
        final HostCounters counters = new HostCounters();
        final FrameDecoder output = new FrameDecoder();
        final FrameMutator mutator;
        HostConnection connection;
        long connections;
        long framesOut;

        InProcessHost(FrameMutator mutator) {
            this.mutator = mutator;
            open();
        }

        /** A new connection, bound to Echo; a quarter of them first claim a random pid. */
        void open() {
            connection = new HostConnection(++connections, System.getProperty("user.name"), services, identities, counters, c -> { });
            if (mutator.nextInt(4) == 0) {
                connection.receive(ByteBuffer.wrap(FrameMutator.frame(IPCFrame.newBuilder()
                        .setSetPeerIdentity(IPCFrame.SetPeerIdentity.newBuilder().setPid(mutator.nextInt(1 << 22))).build().toByteArray())));
            }
            connection.receive(ByteBuffer.wrap(FrameMutator.frame(IpcWireTest.bindFrame(0, EchoService.NAME).toByteArray())));
            drainOutput(-1);
        }

        /** What the I/O loop does when a connection closes. */
        void reopenIfClosed() {
            if (connection.closeReason() != null) {
                connection.unbindAll();
                open();
            }
        }

        /** Reads what the host queued, as a client would: only well-formed replies may come out. */
        void drainOutput(int frameIndex) {
            ByteBuffer frame;
            while ((frame = connection.outbox().poll()) != null) {
                if (!output.feed(frame, replySink(frameIndex))) {
                    fail("seed " + SEED + ", frame " + frameIndex + ": the host sent an oversize frame");
                }
            }
        }

        private FrameDecoder.Sink replySink(int frameIndex) {
            return new FrameDecoder.Sink() {
                @Override
                public void frame(IPCFrame frame) {
                    framesOut++;
                    switch (frame.getMsgCase()) {
                        case MSG_BIND_SERVICE_REPLY, MSG_INVOKE_METHOD_REPLY, MSG_REQUEST_ERROR -> { }
                        default -> fail("seed " + SEED + ", frame " + frameIndex + ": the host sent " + frame);
                    }
                }

                @Override
                public void malformed(String reason) {
                    fail("seed " + SEED + ", frame " + frameIndex + ": the host sent a malformed frame: " + reason);
                }
            };
        }

        void finish() {
            connection.unbindAll();
            assertEquals(counters.framesSent.get(), framesOut, "seed " + SEED + ": frames the host counted as sent");
            for (EchoService service : List.of(echo, other)) {
                for (EchoService.Binding binding : service.bindings) {
                    assertEquals(1, binding.unbound.get(), "seed " + SEED + ": every binding is unbound exactly once");
                }
            }
        }
    }

    @Test
    void aMillionMutatedFramesNeverEscapeTheConnectionLogicAndAreAllCounted() throws Throwable {
        onShallowStack(this::fuzzInProcess);
    }

    /**
     * Runs {@code body} on a new thread and rethrows what it threw. Protobuf reports every malformed frame
     * with an exception whose stack trace is filled in; below JUnit's deep stack that costs as much as
     * everything else the fuzz does.
     */
    private static void onShallowStack(Runnable body) throws Throwable {
        Throwable[] thrown = new Throwable[1];
        Thread thread = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable t) {
                thrown[0] = t;
            }
        }, "ipc-fuzz");
        thread.start();
        thread.join();
        if (thrown[0] != null) {
            throw thrown[0];
        }
    }

    private void fuzzInProcess() {
        LOG.info("IPC fuzz seed {} (rerun with -Djtrace.fuzz.seed={})", SEED, SEED);
        FrameMutator mutator = new FrameMutator(SEED);
        InProcessHost host = new InProcessHost(mutator);
        long start = System.nanoTime();
        long cpuStart = CPU.getCurrentThreadCpuTime();
        long expectedMalformed = 0;
        for (int i = 0; i < WELL_FRAMED; i++) {
            byte[] payload = mutator.payload();
            boolean malformed = payload.length == 0 || !parses(payload);
            expectedMalformed += malformed ? 1 : 0;
            long handledBefore = host.counters.framesReceived.get() + host.counters.framesMalformed.get();
            if (!host.connection.receive(ByteBuffer.wrap(FrameMutator.frame(payload)))) {
                fail("seed " + SEED + ", frame " + i + ": a frame of " + payload.length + " bytes was taken as oversize");
            }
            long handled = host.counters.framesReceived.get() + host.counters.framesMalformed.get() - handledBefore;
            if (handled != 1 || host.counters.framesMalformed.get() != expectedMalformed) {
                fail("seed " + SEED + ", frame " + i + " " + Arrays.toString(payload) + ": counted " + handled
                        + " frames, malformed " + host.counters.framesMalformed.get() + " of " + expectedMalformed + " expected");
            }
            host.drainOutput(i);
            host.reopenIfClosed();
        }
        long oversize = 0;
        for (int i = 0; i < TAMPERED; i++) {
            byte[] payload = mutator.payload();
            byte[] bytes = mutator.nextInt(8) == 0 ? mutator.tamperedFrame(payload) : FrameMutator.frame(payload);
            if (!host.connection.receive(ByteBuffer.wrap(bytes))) {
                oversize++;
                assertEquals(oversize, host.counters.oversizeCloses.get(), "seed " + SEED + ", tampered frame " + i);
            }
            host.drainOutput(WELL_FRAMED + i);
            host.reopenIfClosed();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpuSeconds = (CPU.getCurrentThreadCpuTime() - cpuStart) / 1e9;
        host.finish();
        int frames = WELL_FRAMED + TAMPERED;
        LOG.info("IPC fuzz seed {}: {} frames in {} s ({} frames/s; {} s CPU, {} frames/CPU-s, with the test's own "
                + "generation and checks), {} connections, {} malformed, {} oversize closes, "
                + "{} frames sent, {} calls reached the services, {} failed",
                SEED, frames, String.format("%.2f", seconds), String.format("%.0f", frames / seconds),
                String.format("%.2f", cpuSeconds), String.format("%.0f", frames / cpuSeconds), host.connections,
                host.counters.framesMalformed.get(), oversize, host.framesOut,
                host.echo.calls.get() + host.other.calls.get(), host.counters.failedCalls.get());
        assertTrue(host.echo.calls.get() > 10_000, "seed " + SEED + ": the fuzz reaches the service's methods");
        assertTrue(host.echo.badArgs.get() > 1_000, "seed " + SEED + ": the fuzz reaches the service's argument parsing");
        assertTrue(oversize > 100, "seed " + SEED + ": the fuzz reaches oversize closes");
        assertTrue(host.connections > 100, "seed " + SEED + ": the fuzz reaches CloseMe and oversize reconnects");
    }

    private static boolean parses(byte[] payload) {
        try {
            IPCFrame.parseFrom(payload);
            return true;
        } catch (InvalidProtocolBufferException e) {
            return false;
        }
    }

    @Test
    void mutatedFramesOverRealConnectionsHurtNoWellBehavedClient() throws Exception {
        LOG.info("IPC socket fuzz seed {} (rerun with -Djtrace.fuzz.seed={})", SEED, SEED);
        EchoService echo = new EchoService(EchoService.NAME, FUZZ_METHODS);
        FrameMutator mutator = new FrameMutator(SEED);
        Queue<String> goodFailures = new ConcurrentLinkedQueue<>();
        AtomicInteger goodCalls = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        int badConnections = 0;
        try (IpcHost host = IpcHost.listen(directory.resolve("fuzz.sock"), List.of(echo, new EchoService("Other", FUZZ_METHODS)), "fuzz");
                IpcClient good = IpcClient.connect(host.socketPath(), null)) {
            ServiceProxy proxy = good.bind(EchoService.NAME).get(10, TimeUnit.SECONDS);
            Thread caller = new Thread(() -> {
                for (int n = 0; !stop.get() || n < 100; n++) {
                    RecordingHandler handler = new RecordingHandler();
                    proxy.invoke("Echo", EchoService.message("good", n), handler);
                    try {
                        List<?> replies = handler.done.get(10, TimeUnit.SECONDS);
                        if (!replies.equals(List.of(EchoService.message("good", n)))) {
                            goodFailures.add("call " + n + " got " + replies);
                        }
                    } catch (Exception e) {
                        goodFailures.add("call " + n + " failed: " + e);
                    }
                    goodCalls.incrementAndGet();
                }
            }, "good-caller");
            caller.start();
            RawPeer bad = null;
            int framesLeft = 0;
            for (int i = 0; i < SOCKET_FRAMES; i++) {
                if (bad == null) {
                    bad = new RawPeer(host.socketPath());
                    badConnections++;
                    framesLeft = Integer.MAX_VALUE;
                    bad.send(IpcWireTest.bindFrame(0, EchoService.NAME));
                }
                byte[] payload = mutator.payload();
                int kind = mutator.nextInt(64);
                byte[] bytes = kind < 4 ? mutator.tamperedFrame(payload) : FrameMutator.frame(payload);
                if (kind < 4) {
                    // A wrong length can leave the host waiting for a frame that swallows all that follows:
                    // a few more frames show what it does with them, then the peer goes.
                    framesLeft = Math.min(framesLeft, 8);
                } else if (kind == 4) {
                    bytes = Arrays.copyOf(bytes, bytes.length / 2); // Half a frame, then the peer goes.
                    framesLeft = 0;
                }
                try {
                    bad.write(bytes);
                    if (--framesLeft <= 0 || !bad.drainAvailable()) {
                        bad.close();
                        bad = null;
                    }
                } catch (IOException closedByHost) {
                    bad.close();
                    bad = null;
                }
            }
            if (bad != null) {
                bad.close();
            }
            stop.set(true);
            caller.join(TimeUnit.SECONDS.toMillis(60));
            assertFalse(caller.isAlive(), "seed " + SEED + ": the good client's calls all ended (" + goodCalls.get() + " so far)");
            assertTrue(goodCalls.get() >= 100, "seed " + SEED + ": " + goodCalls.get() + " good calls");
            assertTrue(goodFailures.isEmpty(), "seed " + SEED + ": the good client's calls failed: " + goodFailures);
            assertTrue(good.isConnected(), "seed " + SEED);
            awaitTrue(() -> host.stats().connectionsOpen() == 1, "only the good client is connected (seed " + SEED + ")");
            IpcHostStats stats = host.stats();
            LOG.info("IPC socket fuzz seed {}: {} frames over {} bad connections beside {} good calls; {}",
                    SEED, SOCKET_FRAMES, badConnections, goodCalls.get(), stats);
            assertEquals(badConnections + 1, stats.connectionsAccepted(), "seed " + SEED);
            assertTrue(stats.oversizeCloses() > 0 && stats.framesMalformed() > 0, "seed " + SEED + ": " + stats);
            long boundBad = echo.bindings.stream().filter(b -> b.unbound.get() == 1).count();
            assertEquals(echo.bindings.size() - 1, boundBad, "seed " + SEED + ": every bad connection's binding is unbound once");
        }
    }
}
