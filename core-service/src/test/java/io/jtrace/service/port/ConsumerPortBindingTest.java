package io.jtrace.service.port;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.ipc.ServiceBinding;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.EnableTracingRequest;
import io.jtrace.protos.EnableTracingResponse;
import io.jtrace.protos.GetTraceStatsResponse;
import io.jtrace.protos.QueryServiceStateResponse;
import io.jtrace.protos.TraceConfig;
import io.jtrace.service.ProcessIdentity;
import io.jtrace.service.ServiceConfig;
import io.jtrace.service.TracingService;
import io.jtrace.service.status.ServiceStatus;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConsumerPortBindingTest {
    private static final int OTHER_UID = 4242;
    private final TracingService service = new TracingService(new ServiceConfig(64 * 1024, 4096, null, 16, 1L << 30,
            5000, 2));
    private final ConsumerPortService port = new ConsumerPortService(service);

    @AfterEach
    void close() {
        service.close();
    }

    private static TraceConfig config() {
        return TraceConfig.newBuilder()
                .addBuffers(TraceConfig.BufferConfig.newBuilder().setSizeKb(64))
                .addDataSources(TraceConfig.DataSource.newBuilder().setConfig(DataSourceConfig.newBuilder().setName("x")))
                .build();
    }

    private static RecordingReply call(ServiceBinding binding, String method, com.google.protobuf.MessageLite args) {
        RecordingReply reply = new RecordingReply();
        binding.invoke(method, args.toByteString(), reply);
        return reply;
    }

    private static RecordingReply enable(ServiceBinding binding, TraceConfig config) {
        return call(binding, "EnableTracing", EnableTracingRequest.newBuilder().setTraceConfig(config).build());
    }

    private ServiceStatus status() throws Exception {
        return service.status().get(30, TimeUnit.SECONDS);
    }

    /** Waits (bounded) until the service holds {@code n} sessions. */
    private void awaitSessions(int n) throws Exception {
        for (int i = 0; i < 3000 && status().sessions().size() != n; i++) {
            Thread.sleep(10);
        }
        assertEquals(n, status().sessions().size());
    }

    @Test
    void enableTracingIsAnsweredWhenTheSessionEndsWithDisabled() throws Exception {
        ServiceBinding consumer = port.bind(new FakeConnection(OTHER_UID, 10));
        RecordingReply session = enable(consumer, config());
        awaitSessions(1);
        assertTrue(!session.last.isDone(), "EnableTracing is answered only when the session ends");
        call(consumer, "DisableTracing", io.jtrace.protos.DisableTracingRequest.getDefaultInstance()).await();
        EnableTracingResponse ended = session.await();
        assertTrue(ended.getDisabled());
        assertEquals("", ended.getError());
        assertEquals(0, session.afterLast);
    }

    @Test
    void aRefusedConfigIsAnsweredAtOnceWithTheServicesReason() throws Exception {
        ServiceBinding consumer = port.bind(new FakeConnection(OTHER_UID, 10));
        EnableTracingResponse refused = enable(consumer, TraceConfig.getDefaultInstance()).await();
        assertTrue(refused.getError().contains("buffer"), refused.getError());
        assertEquals(0, status().sessions().size());
    }

    @Test
    void writeIntoFileIsRefusedToAConsumerOfAnotherUser(@TempDir Path dir) throws Exception {
        TraceConfig toFile = config().toBuilder().setWriteIntoFile(true)
                .setOutputPath(dir.resolve("t.pftrace").toString()).build();
        ServiceBinding stranger = port.bind(new FakeConnection(ProcessIdentity.uid() + 1, 10));
        EnableTracingResponse refused = enable(stranger, toFile).await();
        assertTrue(refused.getError().contains("write_into_file"), refused.getError());
        assertEquals(0, status().sessions().size());

        ServiceBinding owner = port.bind(new FakeConnection(ProcessIdentity.uid(), 11));
        RecordingReply accepted = enable(owner, toFile);
        awaitSessions(1);
        assertTrue(!accepted.last.isDone());
    }

    @Test
    void aConsumerCannotReadStopOrFreeAnotherConsumersSession() throws Exception {
        ServiceBinding owner = port.bind(new FakeConnection(OTHER_UID, 10));
        ServiceBinding other = port.bind(new FakeConnection(OTHER_UID + 1, 11));
        RecordingReply session = enable(owner, config());
        awaitSessions(1);
        for (String method : new String[] {"DisableTracing", "ReadBuffers", "FreeBuffers", "Flush", "GetTraceStats"}) {
            String why = call(other, method, com.google.protobuf.Empty.getDefaultInstance()).awaitFailure();
            assertTrue(why.contains("no tracing session"), method + ": " + why);
        }
        assertEquals("STARTED", status().sessions().get(0).state());
        assertTrue(!session.last.isDone());
        GetTraceStatsResponse stats = call(owner, "GetTraceStats", com.google.protobuf.Empty.getDefaultInstance()).await();
        assertEquals(1, stats.getTraceStats().getBufferStatsCount());
    }

    @Test
    void aConsumerThatGoesAwayFreesItsSession() throws Exception {
        ServiceBinding consumer = port.bind(new FakeConnection(OTHER_UID, 10));
        enable(consumer, config());
        awaitSessions(1);
        consumer.unbound();
        awaitSessions(0);
    }

    @Test
    void aUidGetsNoMoreSessionsThanItsLimitWhileOthersStillDo() throws Exception {
        for (int i = 0; i < 2; i++) {
            enable(port.bind(new FakeConnection(OTHER_UID, 10 + i)), config());
        }
        awaitSessions(2);
        EnableTracingResponse third = enable(port.bind(new FakeConnection(OTHER_UID, 12)), config()).await();
        assertTrue(third.getError().contains("too many tracing sessions for uid " + OTHER_UID), third.getError());
        enable(port.bind(new FakeConnection(OTHER_UID + 1, 13)), config());
        awaitSessions(3);
    }

    @Test
    void oneConnectionHasOneSession() throws Exception {
        ServiceBinding consumer = port.bind(new FakeConnection(OTHER_UID, 10));
        enable(consumer, config());
        awaitSessions(1);
        EnableTracingResponse second = enable(consumer, config()).await();
        assertTrue(second.getError().contains("already has a tracing session"), second.getError());
        awaitSessions(1);
    }

    @Test
    void serviceStateListsSessionsWithTheirConsumersUid() throws Exception {
        ServiceBinding consumer = port.bind(new FakeConnection(OTHER_UID, 10));
        enable(consumer, config().toBuilder().setUniqueSessionName("mine").build());
        awaitSessions(1);
        QueryServiceStateResponse state = call(consumer, "QueryServiceState",
                io.jtrace.protos.QueryServiceStateRequest.getDefaultInstance()).await();
        assertEquals(1, state.getServiceState().getTracingSessionsCount());
        assertEquals(OTHER_UID, state.getServiceState().getTracingSessions(0).getConsumerUid());
        assertEquals("mine", state.getServiceState().getTracingSessions(0).getUniqueSessionName());
        assertEquals(64, state.getServiceState().getTracingSessions(0).getBufferSizeKb(0));
    }
}
