package io.jtrace.service.port;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.MessageLite;
import io.jtrace.ipc.ServiceBinding;
import io.jtrace.ports.PortNames;
import io.jtrace.protos.CommitDataRequest;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.DataSourceDescriptor;
import io.jtrace.protos.EnableTracingRequest;
import io.jtrace.protos.EnableTracingResponse;
import io.jtrace.protos.FlushRequest;
import io.jtrace.protos.InitializeConnectionRequest;
import io.jtrace.protos.NotifyDataSourceStartedRequest;
import io.jtrace.protos.RegisterDataSourceRequest;
import io.jtrace.protos.RegisterTraceWriterRequest;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.UnregisterDataSourceRequest;
import io.jtrace.service.ProcessIdentity;
import io.jtrace.service.ServiceConfig;
import io.jtrace.service.TracingService;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Every method of both ports, called with random and mutated arguments on bindings of a real service
 * whose fuzzed producer has a live SMB (so commits reach the chunk mover): nothing escapes a binding,
 * every call is answered exactly once, and the service still serves a clean session afterwards.
 */
class PortFuzzTest {
    private static final long SEED = Long.getLong("jtrace.fuzz.seed", 20261123L);
    private static final int CALLS = 300_000;
    /** No consumer is the service's own user: fuzzed configs must not write files. */
    private static final int CONSUMER_UID = ProcessIdentity.uid() + 1000;

    @Test
    void randomAndMutatedCallsOnEveryPortMethodLeaveTheServiceServing() throws Exception {
        Random random = new Random(SEED);
        // Small limits: a fuzzed config may ask for anything, and must get at most this.
        TracingService service = new TracingService(new ServiceConfig(64 * 1024, 4096, null, 4, 4L << 20, 200, 4));
        try {
            ProducerPortService producers = new ProducerPortService(service);
            ConsumerPortService consumers = new ConsumerPortService(service);
            ServiceBinding producer = producers.bind(new FakeConnection(CONSUMER_UID, 1));
            answered(call(producer, "InitializeConnection", InitializeConnectionRequest.newBuilder()
                    .setProducerName("fuzzed").build()));
            RecordingReply commands = call(producer, "GetAsyncCommand", com.google.protobuf.Empty.getDefaultInstance());
            answered(call(producer, "RegisterDataSource", RegisterDataSourceRequest.newBuilder()
                    .setDataSourceDescriptor(DataSourceDescriptor.newBuilder().setName("fuzz")).build()));
            ServiceBinding owner = consumers.bind(new FakeConnection(CONSUMER_UID, 2));
            call(owner, "EnableTracing", EnableTracingRequest.newBuilder().setTraceConfig(config("fuzz")).build());
            awaitCommands(commands, 3); // setup tracing, setup and start data source: the SMB exists now

            Map<String, List<MessageLite>> valid = validArguments();
            List<RecordingReply> replies = new ArrayList<>();
            List<ServiceBinding> consumerBindings = new ArrayList<>(List.of(owner));
            for (int i = 0; i < CALLS; i++) {
                boolean toProducer = random.nextInt(3) != 0;
                List<String> methods = toProducer ? PortNames.producerMethods() : PortNames.consumerMethods();
                String method = methods.get(random.nextInt(methods.size()));
                ServiceBinding binding = toProducer ? producer : consumerBindings.get(random.nextInt(consumerBindings.size()));
                if (!toProducer && random.nextInt(1000) == 0) {
                    ServiceBinding fresh = consumers.bind(new FakeConnection(CONSUMER_UID + random.nextInt(3), 3));
                    consumerBindings.add(fresh);
                    binding = fresh;
                }
                RecordingReply reply = new RecordingReply();
                binding.invoke(method, mutate(random, valid.getOrDefault(method, List.of()), valid), reply);
                if (replies.size() < 50_000) {
                    replies.add(reply);
                }
                if (!toProducer && random.nextInt(20_000) == 0 && consumerBindings.size() > 1) {
                    consumerBindings.remove(consumerBindings.size() - 1).unbound();
                }
            }
            for (ServiceBinding consumer : consumerBindings) {
                consumer.unbound();
            }
            producer.unbound();
            // Everything posted so far has run once status answers (one task thread, in order).
            service.status().get(30, TimeUnit.SECONDS);
            for (RecordingReply reply : replies) {
                // Sessions end when their consumers go and flushes time out: by then every call has its answer.
                try {
                    reply.last.handle((ok, failed) -> null).get(30, TimeUnit.SECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    throw new AssertionError("a call was never answered (seed " + SEED + ")", e);
                }
                assertEquals(0, reply.afterLast, "a call was answered twice (seed " + SEED + ")");
            }

            ServiceBinding clean = consumers.bind(new FakeConnection(CONSUMER_UID + 7, 9));
            RecordingReply session = call(clean, "EnableTracing", EnableTracingRequest.newBuilder()
                    .setTraceConfig(config("none")).build());
            answered(call(clean, "DisableTracing", com.google.protobuf.Empty.getDefaultInstance()));
            EnableTracingResponse ended = session.await();
            assertTrue(ended.getDisabled(), "seed " + SEED + ": " + ended);
        } finally {
            service.close();
        }
    }

    private static TraceConfig config(String dataSource) {
        return TraceConfig.newBuilder()
                .addBuffers(TraceConfig.BufferConfig.newBuilder().setSizeKb(256))
                .addDataSources(TraceConfig.DataSource.newBuilder().setConfig(DataSourceConfig.newBuilder().setName(dataSource)))
                .build();
    }

    private static Map<String, List<MessageLite>> validArguments() {
        Map<String, List<MessageLite>> valid = new HashMap<>();
        valid.put("CommitData", List.of(
                CommitDataRequest.newBuilder().addChunksToMove(CommitDataRequest.ChunksToMove.newBuilder()
                        .setPage(1).setChunk(2).setTargetBuffer(1)).build(),
                CommitDataRequest.newBuilder().addChunksToPatch(CommitDataRequest.ChunkToPatch.newBuilder()
                        .setWriterId(1).setChunkId(3).setTargetBuffer(1).addPatches(CommitDataRequest.ChunkToPatch.Patch
                                .newBuilder().setOffset(8).setData(ByteString.copyFrom(new byte[4])))).setFlushRequestId(1).build()));
        valid.put("RegisterDataSource", List.of(RegisterDataSourceRequest.newBuilder()
                .setDataSourceDescriptor(DataSourceDescriptor.newBuilder().setName("fuzz2").setWillNotifyOnStop(true)).build()));
        valid.put("UnregisterDataSource", List.of(UnregisterDataSourceRequest.newBuilder().setDataSourceName("fuzz").build()));
        valid.put("RegisterTraceWriter", List.of(RegisterTraceWriterRequest.newBuilder().setTraceWriterId(1).setTargetBuffer(1).build()));
        valid.put("NotifyDataSourceStarted", List.of(NotifyDataSourceStartedRequest.newBuilder().setDataSourceId(1).build()));
        valid.put("InitializeConnection", List.of(InitializeConnectionRequest.newBuilder().setProducerName("again").build()));
        valid.put("EnableTracing", List.of(EnableTracingRequest.newBuilder().setTraceConfig(config("fuzz")).build()));
        valid.put("Flush", List.of(FlushRequest.newBuilder().setTimeoutMs(10).build()));
        return valid;
    }

    /** Valid arguments of the method (or of another one), then perhaps broken in one of several ways. */
    private static ByteString mutate(Random random, List<MessageLite> ofMethod, Map<String, List<MessageLite>> all) {
        byte[] bytes;
        int kind = random.nextInt(6);
        if (kind == 0 || ofMethod.isEmpty()) {
            bytes = new byte[random.nextInt(64)];
            random.nextBytes(bytes);
            return ByteString.copyFrom(bytes);
        }
        if (kind == 1) {
            List<List<MessageLite>> others = new ArrayList<>(all.values());
            List<MessageLite> other = others.get(random.nextInt(others.size()));
            return other.get(random.nextInt(other.size())).toByteString();
        }
        bytes = ofMethod.get(random.nextInt(ofMethod.size())).toByteArray();
        switch (kind) {
            case 2 -> {
                for (int flips = 1 + random.nextInt(3); flips > 0 && bytes.length > 0; flips--) {
                    bytes[random.nextInt(bytes.length)] ^= (byte) (1 << random.nextInt(8));
                }
            }
            case 3 -> bytes = java.util.Arrays.copyOf(bytes, bytes.length == 0 ? 0 : random.nextInt(bytes.length));
            case 4 -> {
                byte[] tail = new byte[1 + random.nextInt(16)];
                random.nextBytes(tail);
                bytes = ByteString.copyFrom(bytes).concat(ByteString.copyFrom(tail)).toByteArray();
            }
            default -> {
                // Left valid: the fuzzer must also reach the methods' real work.
            }
        }
        return ByteString.copyFrom(bytes);
    }

    private static RecordingReply call(ServiceBinding binding, String method, MessageLite args) {
        RecordingReply reply = new RecordingReply();
        binding.invoke(method, args.toByteString(), reply);
        return reply;
    }

    private static void answered(RecordingReply reply) throws Exception {
        reply.await();
    }

    private static void awaitCommands(RecordingReply stream, int n) throws InterruptedException {
        for (int i = 0; i < 3000 && stream.streamed.size() < n; i++) {
            Thread.sleep(10);
        }
        assertTrue(stream.streamed.size() >= n, "the service sent " + stream.streamed.size() + " commands");
    }
}
