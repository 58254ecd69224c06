package io.jtrace.agent.tracks;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Whether a thread is virtual. The agent is built for JDK 17, where {@code Thread.isVirtual()} does not
 * exist (and no thread is virtual); on JDK 21+ it is looked up once and called through a handle.
 */
public final class ThreadKind {
    private static final MethodHandle IS_VIRTUAL = lookUpIsVirtual();

    private ThreadKind() {}

    public static boolean isVirtual(Thread thread) {
        if (IS_VIRTUAL == null) {
            return false;
        }
        try {
            return (boolean) IS_VIRTUAL.invokeExact(thread);
        } catch (Throwable e) {
            return false;
        }
    }

    private static MethodHandle lookUpIsVirtual() {
        try {
            return MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual",
                    MethodType.methodType(boolean.class));
        } catch (NoSuchMethodException | IllegalAccessException e) {
            return null;
        }
    }
}
