package io.jtrace.it.workload;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Virtual threads for workloads built for JDK 17 ({@code Thread.ofVirtual()} is JDK 21+): made through
 * method handles, looked up once. Fails on a JDK without virtual threads.
 */
final class VirtualThreads {
    private static final MethodHandle OF_VIRTUAL;
    private static final MethodHandle NAME;
    private static final MethodHandle UNSTARTED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            Class<?> builderClass = Class.forName("java.lang.Thread$Builder");
            OF_VIRTUAL = lookup.findStatic(Thread.class, "ofVirtual",
                    MethodType.methodType(Class.forName("java.lang.Thread$Builder$OfVirtual")));
            NAME = lookup.findVirtual(builderClass, "name", MethodType.methodType(builderClass, String.class));
            UNSTARTED = lookup.findVirtual(builderClass, "unstarted", MethodType.methodType(Thread.class, Runnable.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private VirtualThreads() {}

    /** A virtual thread, not started, running {@code body}; named {@code name}, or unnamed when null. */
    static Thread unstarted(String name, Runnable body) throws Throwable {
        Object builder = OF_VIRTUAL.invoke();
        if (name != null) {
            builder = NAME.invoke(builder, name);
        }
        return (Thread) UNSTARTED.invoke(builder, body);
    }
}
