package io.jtrace.it.workload;

import io.jtrace.api.AsyncTrack;
import io.jtrace.api.Category;
import io.jtrace.api.Slice;
import io.jtrace.api.TrackEvent;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Requests that hop threads: a producer thread handles each request in a slice "produce-i" that starts a
 * flow, and hands it to a consumer thread whose slice "consume-i" ends the flow; each request also has an
 * async track "request-i" on which a slice "request" begins on the producer and ends on the consumer.
 * Every produce slice carries annotations of every kind. Prints {@code REQUESTS=}, {@code FLOW_<i>=} (each
 * request's flow id) on stdout.
 */
public final class FlowWorkload {
    private static final Category APP = Category.of("flows");

    private FlowWorkload() {}

    private record Request(int index, long flow, AsyncTrack track) {}

    public static void main(String[] args) throws Exception {
        int requests = Integer.parseInt(args[0]);
        BlockingQueue<Request> queue = new ArrayBlockingQueue<>(requests);
        Thread consumer = new Thread(() -> {
            try {
                for (int i = 0; i < requests; i++) {
                    Request r = queue.take();
                    try (Slice s = TrackEvent.event(APP).terminateFlow(r.flow()).slice("consume-" + r.index())) {
                        Thread.onSpinWait();
                    }
                    TrackEvent.event(APP).on(r.track()).end();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "consumer");
        consumer.start();
        Thread producer = new Thread(() -> {
            for (int i = 0; i < requests; i++) {
                long flow = TrackEvent.newFlowId();
                AsyncTrack track = AsyncTrack.named("request-" + i);
                System.out.println("FLOW_" + i + "=" + flow);
                TrackEvent.event(APP).on(track).begin("request");
                TrackEvent.event(APP).arg("index", i).arg("ratio", i / 2.0).arg("even", i % 2 == 0).arg("label", "req-" + i)
                        .flow(flow).begin("produce-" + i);
                queue.add(new Request(i, flow, track));
                TrackEvent.end(APP);
            }
        }, "producer");
        producer.start();
        producer.join();
        consumer.join();
        System.out.println("REQUESTS=" + requests);
    }
}
