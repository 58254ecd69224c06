package io.jtrace.service;

import io.jtrace.producer.DataSourceContext;
import io.jtrace.producer.ProducerClient;
import java.util.concurrent.CompletableFuture;

/**
 * A producer "p" (uid 1, pid 1) connected to a service, offering the data source "src": its context
 * once a session starts it, for the test to make writers with.
 */
final class SourceProducer implements AutoCloseable {
    final CompletableFuture<DataSourceContext> context = new CompletableFuture<>();
    private final ProducerClient client;

    SourceProducer(TracingService service) {
        client = ServiceTesting.producerClient(service, "p", 1, 1, new TestDataSource("src",
                (ctx, cfg) -> TestDataSource.onStart(() -> context.complete(ctx))));
    }

    @Override
    public void close() {
        client.close();
    }
}
