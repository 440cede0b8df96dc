import { revisionsSuite } from "./revisions.suite";

revisionsSuite("sqlite");
