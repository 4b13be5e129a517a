package io.cronoq.ops.http;

import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;

/** A command about one task: the gateway to ask and the task it names. */
abstract class TaskCommand implements Callable<Integer> {

    @Mixin
    GatewayOptions gateway;

    @Mixin
    TaskRef task;
}
