package io.jtrace.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.InvalidProtocolBufferException;
import io.jtrace.producer.DataSource;
import io.jtrace.producer.ProducerClient;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TraceStats;
import io.jtrace.service.buffer.PacketSink;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** Configs, waiting and reading shared by the service tests. */
final class ServiceTesting {
    /** Liveness bound for anything the tests wait for; never a timing assertion. */
    static final long WAIT_SECONDS = 30;

    private ServiceTesting() {}

    static TraceConfig config(int bufferKb, String dataSource) {
        return TraceConfig.newBuilder()
                .addBuffers(TraceConfig.BufferConfig.newBuilder().setSizeKb(bufferKb))
                .addDataSources(TraceConfig.DataSource.newBuilder()
                        .setConfig(DataSourceConfig.newBuilder().setName(dataSource)))
                .build();
    }

    /** A {@link ProducerClient} offering {@code source}, connected to {@code service} as {@code name} (uid, pid). */
    static ProducerClient producerClient(TracingService service, String name, int uid, int pid, DataSource source) {
        ProducerClient client = new ProducerClient(name, List.of(source));
        client.connect(p -> service.connectProducer(p, name, uid, pid));
        return client;
    }

    static <T> T await(Future<T> future) throws Exception {
        return future.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    /** Reads the session's buffers, parsing each packet as it is delivered (the array is reused). */
    static List<TracePacket> read(ConsumerEndpoint consumer) throws Exception {
        List<TracePacket> packets = Collections.synchronizedList(new ArrayList<>());
        long delivered = await(consumer.readBuffers(PacketSink.joined((bytes, offset, length) -> {
            try {
                packets.add(TracePacket.parseFrom(Arrays.copyOfRange(bytes, offset, offset + length)));
            } catch (InvalidProtocolBufferException e) {
                fail("the service delivered a packet that does not parse: " + e);
            }
        })));
        if (delivered != packets.size()) {
            fail("readBuffers reported " + delivered + " packets but delivered " + packets.size());
        }
        return new ArrayList<>(packets);
    }

    static List<TracePacket> producerPackets(List<TracePacket> packets) {
        return packets.stream().filter(p -> p.getTrustedPacketSequenceId() != TracingService.SERVICE_SEQUENCE_ID)
                .collect(Collectors.toList());
    }

    static List<TracePacket> servicePackets(List<TracePacket> packets) {
        return packets.stream().filter(p -> p.getTrustedPacketSequenceId() == TracingService.SERVICE_SEQUENCE_ID)
                .collect(Collectors.toList());
    }

    static List<TracePacket> withTag(List<TracePacket> packets, long tag) {
        return packets.stream().filter(p -> p.hasTrackEvent() && p.getTrackEvent().getTrackUuid() == tag)
                .collect(Collectors.toList());
    }

    static TraceStats traceStats(List<TracePacket> packets) {
        List<TraceStats> stats = packets.stream().filter(TracePacket::hasTraceStats).map(TracePacket::getTraceStats)
                .collect(Collectors.toList());
        if (stats.isEmpty()) {
            fail("no trace_stats packet among " + packets.size() + " packets");
        }
        return stats.get(stats.size() - 1);
    }

    /**
     * The packets tagged {@code tag} must be exactly {@link TestPackets#expected}(tag, 0..count-1), in
     * that order (the service's own fields aside).
     */
    static void assertTagged(List<TracePacket> packets, long tag, int count) {
        List<TracePacket> got = withTag(packets, tag);
        assertEquals(count, got.size(), () -> "packets tagged " + tag + ": " + describeOrder(got, count));
        for (int i = 0; i < count; i++) {
            TracePacket p = got.get(i);
            if (!TestPackets.expected(tag, i).equals(TestPackets.withoutServiceFields(p))) {
                assertEquals(TestPackets.expected(tag, i), TestPackets.withoutServiceFields(p),
                        "packet " + i + " tagged " + tag + ": " + describeOrder(got, count));
            }
        }
    }

    /**
     * For failure messages: which indices of 0..count-1 are missing or repeated among the packets'
     * timestamps, and where the order first breaks.
     */
    static String describeOrder(List<TracePacket> packets, int count) {
        int[] seen = new int[count];
        List<Long> outOfRange = new ArrayList<>();
        int firstBreak = -1;
        for (int i = 0; i < packets.size(); i++) {
            long ts = packets.get(i).getTimestamp();
            if (ts >= 0 && ts < count) {
                seen[(int) ts]++;
            } else {
                outOfRange.add(ts);
            }
            if (firstBreak < 0 && ts != i) {
                firstBreak = i;
            }
        }
        List<Integer> missing = new ArrayList<>();
        List<Integer> repeated = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            if (seen[i] == 0 && missing.size() < 20) {
                missing.add(i);
            } else if (seen[i] > 1 && repeated.size() < 20) {
                repeated.add(i);
            }
        }
        return "missing " + missing + ", repeated " + repeated + ", out of range " + outOfRange
                + (firstBreak >= 0 ? ", order breaks at position " + firstBreak : "");
    }

    /** A consumer that records when its session ends. */
    static final class RecordingConsumer implements Consumer {
        final CompletableFuture<String> disabled = new CompletableFuture<>();

        @Override
        public void onTracingDisabled(String error) {
            disabled.complete(error == null ? "" : error);
        }
    }
}
