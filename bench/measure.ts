import {
  type LoadOptions,
  type LoadResult,
  type LoadSample,
  type LoadTool,
  runLoad,
  summarize,
} from './load.ts'
import { machineBusySeconds, type ServerProcess } from './processes.ts'
import type { Endpoint, Measurement, ServerName } from './report.ts'

export interface Schedule {
  tool: LoadTool
  connections: number
  warmupS: number
  /** Measured seconds per server = rounds x roundS. */
  rounds: number
  roundS: number
}

interface Tally {
  samples: LoadSample[]
  serverCpuS: number
  loadGeneratorCpuS: number
  machineCpuS: number
  wallS: number
}

const emptyTally = (): Tally => ({
  samples: [],
  serverCpuS: 0,
  loadGeneratorCpuS: 0,
  machineCpuS: 0,
  wallS: 0,
})

async function measuredRound(server: ServerProcess, load: LoadOptions, tally: Tally): Promise<void> {
  const serverCpu = server.cpuSeconds()
  const machineCpu = machineBusySeconds()
  const started = performance.now()
  const sample = await runLoad(load)
  tally.wallS += (performance.now() - started) / 1000
  tally.loadGeneratorCpuS += sample.cpuS
  tally.serverCpuS += server.cpuSeconds() - serverCpu
  tally.machineCpuS += machineBusySeconds() - machineCpu
  if (sample.failures > 0) throw new Error(`${server.name}: ${sample.failures} failed requests`)
  tally.samples.push(sample)
}

/** One request shape on one server: a row of an alternating measurement. */
export interface Workload {
  server: ServerProcess
  request: Pick<LoadOptions, 'path' | 'headers' | 'method' | 'body'>
}

export interface WorkloadResult {
  load: LoadResult
  /** CPU used during the measured rounds, in cores. */
  serverCores: number
  loadGeneratorCores: number
  otherCores: number
}

/**
 * Several workloads: a warm-up each, then short rounds that alternate between them (and rotate
 * which goes first), so a slow spell of this shared machine weighs on all alike.
 */
export async function measureWorkloads(workloads: Workload[], schedule: Schedule): Promise<WorkloadResult[]> {
  const options = ({ server, request }: Workload, durationS: number): LoadOptions => ({
    tool: schedule.tool,
    url: server.url,
    ...(server.urls ? { urls: server.urls } : {}),
    ...request,
    connections: schedule.connections,
    durationS,
  })
  for (const workload of workloads) await runLoad(options(workload, schedule.warmupS))
  const tallies = workloads.map(emptyTally)
  for (let round = 0; round < schedule.rounds; round++) {
    for (let i = 0; i < workloads.length; i++) {
      const at = (round + i) % workloads.length
      const workload = workloads[at]!
      await measuredRound(workload.server, options(workload, schedule.roundS), tallies[at]!)
    }
  }
  return tallies.map((tally) => ({
    load: summarize(tally.samples),
    serverCores: tally.serverCpuS / tally.wallS,
    loadGeneratorCores: tally.loadGeneratorCpuS / tally.wallS,
    otherCores: Math.max(0, tally.machineCpuS - tally.serverCpuS - tally.loadGeneratorCpuS) / tally.wallS,
  }))
}

/** One endpoint on every server, alternating between them (measureWorkloads). */
export async function measureEndpoint(
  endpoint: Endpoint,
  servers: ServerProcess[],
  request: { path: (n: number) => string; headers: Record<string, string> },
  schedule: Schedule,
): Promise<Measurement[]> {
  const results = await measureWorkloads(
    servers.map((server) => ({ server, request })),
    schedule,
  )
  return servers.map((server, i) => ({
    endpoint,
    server: server.name as ServerName,
    peakRss: server.peakRss(),
    startRss: server.startRss,
    ...results[i]!,
  }))
}
