/* SPDX-License-Identifier: MIT */
/*
 * The test runner of a build outside an ns-3 tree (CMakeLists.txt): ns-3's own runner,
 * utils/test-runner.cc, is not installed with the libraries. Same arguments:
 * --suite=tcpw-vectors, --list, --verbose.
 */
#include "ns3/test.h"

int
main(int argc, char* argv[])
{
    return ns3::TestRunner::Run(argc, argv);
}
