package io.jtrace.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static io.jtrace.ipc.EchoService.assertEchoes;
import static io.jtrace.ipc.EchoService.failureOf;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.InitializeConnectionRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Calls through a real client and host over a UNIX socket: what a service answers is what the caller gets. */
class IpcCallTest {
    @TempDir
    Path directory;

    private final EchoService echo = new EchoService();
    private IpcHost host;
    private IpcClient client;
    private final AtomicInteger disconnects = new AtomicInteger();

    @BeforeEach
    void start() throws Exception {
        host = IpcHost.listen(directory.resolve("host.sock"), List.of(echo), "test");
        client = IpcClient.connect(host.socketPath(), disconnects::incrementAndGet);
    }

    @AfterEach
    void stop() {
        client.close();
        host.close();
    }

    private ServiceProxy echoProxy() throws Exception {
        return client.bind(EchoService.NAME).get(10, TimeUnit.SECONDS);
    }

    @Test
    void aCallReturnsWhatTheServiceReplied() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        echoProxy().invoke("Echo", EchoService.message("hello", 42), handler);
        assertEquals(List.of(EchoService.message("hello", 42)), handler.await());
    }

    @Test
    void aStreamOfRepliesArrivesInOrderAndEnds() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        echoProxy().invoke("Stream", EchoService.message("s", 500), handler);
        List<InitializeConnectionRequest> replies = handler.await();
        assertEquals(500, replies.size());
        for (int i = 0; i < replies.size(); i++) {
            assertEquals(i + 1, replies.get(i).getSharedMemoryPageSizeHintBytes(), "reply " + i + " out of order");
            assertEquals(i < replies.size() - 1, handler.hasMore.get(i), "has_more of reply " + i);
        }
    }

    @Test
    void callsFromManyThreadsAreAnsweredEachToItsCaller() throws Exception {
        ServiceProxy proxy = echoProxy();
        List<Thread> threads = new ArrayList<>();
        List<RecordingHandler> handlers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            List<RecordingHandler> mine = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                mine.add(new RecordingHandler());
            }
            handlers.addAll(mine);
            int thread = t;
            threads.add(new Thread(() -> {
                for (int i = 0; i < mine.size(); i++) {
                    proxy.invoke("Echo", EchoService.message("t" + thread, i), mine.get(i));
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join();
        }
        for (int h = 0; h < handlers.size(); h++) {
            assertEquals(List.of(EchoService.message("t" + h / 200, h % 200)), handlers.get(h).await());
        }
    }

    @Test
    void aReplyGivenLaterFromAnotherThreadArrives() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        echoProxy().invoke("Later", EchoService.message("later", 7), handler);
        Runnable answer = echo.laterReplies.poll(10, TimeUnit.SECONDS);
        assertNotNull(answer, "the call reached the service");
        assertFalse(handler.done.isDone(), "nothing reaches the caller before the service answers");
        answer.run(); // On this thread: neither the host's I/O thread nor inside the call.
        assertEquals(List.of(EchoService.message("later", 7)), handler.await());
    }

    @Test
    void bindingAServiceTheHostDoesNotHaveFailsNamingIt() {
        ExecutionException failure = assertThrows(ExecutionException.class,
                () -> client.bind("NoSuchService").get(10, TimeUnit.SECONDS));
        assertTrue(failure.getCause().getMessage().contains("has no service NoSuchService"), failure.getCause().getMessage());
        assertTrue(client.isConnected(), "a failed bind keeps the connection");
    }

    @Test
    void callingAMethodTheServiceDoesNotHaveFailsAtOnceNamingIt() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        echoProxy().invoke("NoSuchMethod", EchoService.message("x", 1), handler);
        assertTrue(handler.done.isDone(), "fails before anything is sent");
        String reason = handler.awaitFailure();
        assertTrue(reason.contains("Echo has no method NoSuchMethod"), reason);
        assertThrows(IllegalArgumentException.class, () -> echoProxy().invoke("NoSuchMethod", EchoService.message("x", 1), null));
    }

    @Test
    void aCallTheServiceFailsReachesTheCallerAsAFailure() throws Exception {
        assertEquals("Echo.Fail failed on the host", failureOf(echoProxy(), "Fail"));
        assertEquals(1, host.stats().failedCalls());
    }

    @Test
    void aServiceThatThrowsFailsOnlyThatCall() throws Exception {
        ServiceProxy proxy = echoProxy();
        assertEquals("Echo.Throw failed on the host", failureOf(proxy, "Throw"));
        assertEchoes(proxy, "after", 2);
    }

    @Test
    void aReplyOverTheFrameLimitFailsTheCallInsteadOfBreakingTheConnection() throws Exception {
        ServiceProxy proxy = echoProxy();
        assertEquals("Echo.Huge failed on the host", failureOf(proxy, "Huge"));
        assertEchoes(proxy, "after", 2);
        assertTrue(client.isConnected());
    }

    @Test
    void argumentsOverTheFrameLimitFailTheCallBeforeSending() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        echoProxy().invoke("Echo", EchoService.message("x".repeat(FrameDecoder.MAX_PAYLOAD), 1), handler);
        String reason = handler.awaitFailure();
        assertTrue(reason.contains("over the IPC limit"), reason);
        assertTrue(client.isConnected());
    }

    @Test
    void aCallThatWantsNoReplyStillRunsAndGetsNothingBack() throws Exception {
        ServiceProxy proxy = echoProxy();
        proxy.invoke("Echo", EchoService.message("dropped", 1), null);
        proxy.invoke("Fail", EchoService.message("dropped", 1), null);
        assertEchoes(proxy, "after", 2);
        assertEquals(3, echo.calls.get(), "the dropped calls ran too");
        // One bind reply and one reply: nothing for the calls that wanted none.
        assertEquals(2, host.stats().framesSent());
        assertEquals(1, host.stats().failedCalls(), "the dropped call that failed is counted");
    }

    /** A call the service never answers, which has reached the service. */
    private static RecordingHandler unansweredCall(ServiceProxy proxy) throws Exception {
        RecordingHandler waiting = new RecordingHandler();
        proxy.invoke("Never", EchoService.message("x", 1), waiting);
        assertEchoes(proxy, "sync", 1); // Answered after the Never call, so that one has reached the service.
        assertFalse(waiting.done.isDone());
        return waiting;
    }

    @Test
    void closingTheClientFailsWaitingCallsAndUnbindsOnce() throws Exception {
        ServiceProxy proxy = echoProxy();
        RecordingHandler waiting = unansweredCall(proxy);
        client.close();
        assertEquals("connection closed", waiting.awaitFailure());
        assertEquals(1, disconnects.get());
        assertFalse(client.isConnected());
        awaitTrue(() -> echo.unbinds.get() == 1, "the binding is told the connection closed");
        RecordingHandler afterClose = new RecordingHandler();
        proxy.invoke("Echo", EchoService.message("x", 1), afterClose);
        assertEquals("connection closed", afterClose.awaitFailure());
        client.close();
        assertEquals(1, disconnects.get(), "onDisconnect runs once");
        assertEquals(1, echo.bindings.get(0).unbound.get());
    }

    @Test
    void aServiceClosingItsConnectionDisconnectsTheClient() throws Exception {
        ServiceProxy proxy = echoProxy();
        RecordingHandler waiting = new RecordingHandler();
        proxy.invoke("CloseMe", EchoService.message("x", 1), waiting);
        assertEquals("connection closed", waiting.awaitFailure());
        awaitTrue(() -> disconnects.get() == 1 && echo.unbinds.get() == 1, "both sides see the close");
        assertFalse(client.isConnected());
        assertEquals(0, host.stats().connectionsOpen());
    }

    @Test
    void closingTheHostDisconnectsClientsUnbindsAndRemovesTheSocket() throws Exception {
        RecordingHandler waiting = unansweredCall(echoProxy());
        host.close();
        assertEquals("connection closed", waiting.awaitFailure());
        assertEquals(1, echo.unbinds.get());
        assertFalse(Files.exists(host.socketPath()), "socket file removed");
        awaitTrue(() -> disconnects.get() == 1, "client disconnected");
    }

    @Test
    void bindingTwiceOnOneConnectionGivesTheSameBinding() throws Exception {
        ServiceProxy first = echoProxy();
        ServiceProxy again = echoProxy();
        assertEchoes(again, "x", 1);
        assertEchoes(first, "y", 2);
        assertEquals(1, echo.binds.get());
    }

    static void awaitTrue(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(5);
        }
    }
}
