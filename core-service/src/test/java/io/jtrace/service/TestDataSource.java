package io.jtrace.service;

import io.jtrace.producer.DataSource;
import io.jtrace.producer.DataSourceContext;
import io.jtrace.producer.DataSourceInstance;
import io.jtrace.protos.DataSourceConfig;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/** A data source whose instances the test scripts; counts the instances created. */
final class TestDataSource implements DataSource {
    private final String name;
    private final BiFunction<DataSourceContext, DataSourceConfig, DataSourceInstance> factory;
    final AtomicInteger created = new AtomicInteger();
    /** Completed with the config of the first instance created. */
    final CompletableFuture<DataSourceConfig> firstCreated = new CompletableFuture<>();

    TestDataSource(String name, BiFunction<DataSourceContext, DataSourceConfig, DataSourceInstance> factory) {
        this.name = name;
        this.factory = factory;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public DataSourceInstance create(DataSourceContext context, DataSourceConfig config) {
        created.incrementAndGet();
        firstCreated.complete(config);
        return factory.apply(context, config);
    }

    /** An instance with nothing to flush or stop beyond what {@code start} does. */
    static DataSourceInstance onStart(Runnable start) {
        return new DataSourceInstance() {
            @Override
            public void start() {
                start.run();
            }

            @Override
            public void flush() {}

            @Override
            public void stop() {}
        };
    }
}
