package io.jtrace.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.jtrace.protos.InitializeConnectionRequest;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real service for the transport's tests: its methods parse their arguments as an
 * {@link InitializeConnectionRequest} (a message with a string and numbers) and answer in the ways a
 * service can: at once, streamed, later from another thread, failing, throwing, too large, closing.
 */
final class EchoService implements IpcServiceDefinition {
    static final String NAME = "Echo";
    /** Positions give the method ids: Echo is 1, Stream 2, and so on. */
    static final List<String> METHODS = List.of("Echo", "Stream", "Later", "Fail", "Throw", "Huge", "Never", "CloseMe");

    final AtomicInteger binds = new AtomicInteger();
    final AtomicInteger unbinds = new AtomicInteger();
    final AtomicInteger calls = new AtomicInteger();
    final AtomicInteger badArgs = new AtomicInteger();
    /** Every binding made, to check each was unbound exactly once. */
    final List<Binding> bindings = new CopyOnWriteArrayList<>();
    /** The answers of Later calls, kept for a test to give from its own thread when it chooses. */
    final BlockingQueue<Runnable> laterReplies = new LinkedBlockingQueue<>();

    private final String name;
    private final List<String> methods;

    EchoService() {
        this(NAME);
    }

    EchoService(String name) {
        this(name, METHODS);
    }

    /** A service offering only {@code methods}, some of {@link #METHODS}. */
    EchoService(String name, List<String> methods) {
        this.name = name;
        this.methods = methods;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public List<String> methods() {
        return methods;
    }

    @Override
    public ServiceBinding bind(IpcConnection connection) {
        binds.incrementAndGet();
        Binding binding = new Binding(connection);
        bindings.add(binding);
        return binding;
    }

    static InitializeConnectionRequest message(String name, int number) {
        return InitializeConnectionRequest.newBuilder().setProducerName(name).setSharedMemoryPageSizeHintBytes(number).build();
    }

    /** Calls Echo through {@code proxy} and checks that exactly its arguments come back, in one reply. */
    static void assertEchoes(ServiceProxy proxy, String name, int number) throws Exception {
        RecordingHandler handler = new RecordingHandler();
        proxy.invoke("Echo", message(name, number), handler);
        assertEquals(List.of(message(name, number)), handler.await());
    }

    /** Calls {@code method} through {@code proxy}; the reason it failed (the test fails if it did not). */
    static String failureOf(ServiceProxy proxy, String method) throws Exception {
        RecordingHandler handler = new RecordingHandler();
        proxy.invoke(method, message("x", 1), handler);
        return handler.awaitFailure();
    }

    final class Binding implements ServiceBinding {
        final IpcConnection connection;
        final AtomicInteger unbound = new AtomicInteger();

        Binding(IpcConnection connection) {
            this.connection = connection;
        }

        @Override
        public void invoke(String method, ByteString args, Reply reply) {
            calls.incrementAndGet();
            InitializeConnectionRequest request;
            try {
                request = InitializeConnectionRequest.parseFrom(args);
            } catch (InvalidProtocolBufferException e) {
                badArgs.incrementAndGet();
                reply.fail("arguments are not an InitializeConnectionRequest: " + e.getMessage());
                return;
            }
            switch (method) {
                case "Echo" -> reply.complete(request);
                case "Stream" -> {
                    // The number says how many replies; capped so a fuzzed number cannot make a test slow.
                    int count = Math.max(1, Math.min(request.getSharedMemoryPageSizeHintBytes(), 1000));
                    for (int i = 1; i < count; i++) {
                        reply.stream(message(request.getProducerName(), i));
                    }
                    reply.complete(message(request.getProducerName(), count));
                }
                case "Later" -> laterReplies.add(() -> reply.complete(request));
                case "Fail" -> reply.fail("asked to fail");
                case "Throw" -> throw new IllegalStateException("asked to throw");
                case "Huge" -> reply.complete(message("x".repeat(FrameDecoder.MAX_PAYLOAD + 1), 0));
                case "Never" -> { }
                case "CloseMe" -> connection.close("asked to close");
                default -> throw new AssertionError("the host called an unknown method " + method);
            }
        }

        @Override
        public void unbound() {
            unbound.incrementAndGet();
            unbinds.incrementAndGet();
        }
    }
}
