import type { DirectoryEntryWire } from '@agent-workspace/protocol';
import { useState } from 'preact/hooks';
import { FileTree } from './file-tree.js';
import { FileViewer } from './file-viewer.js';

/** Props of {@link FilesTab}. */
export interface FilesTabProps {
  /** Absolute path of the directory at the top of the tree. */
  readonly dir: string;
}

/** The files of the workspace: a lazy tree, a viewer of the chosen file, "Refresh". */
export function FilesTab(props: FilesTabProps) {
  const { dir } = props;
  const [includeHidden, setIncludeHidden] = useState(false);
  const [refreshKey, setRefreshKey] = useState(0);
  const [open, setOpen] = useState<string | null>(null);
  const label = open?.startsWith(`${dir}/`) ? open.slice(dir.length + 1) : open;
  return (
    <div class="files-tab">
      <div class="workspace-toolbar">
        <span class="workspace-path" title={dir}>
          {dir}
        </span>
        <label class="workspace-check">
          <input
            type="checkbox"
            checked={includeHidden}
            onChange={(event) => setIncludeHidden(event.currentTarget.checked)}
          />
          Hidden files
        </label>
        <button type="button" class="secondary" onClick={() => setRefreshKey((key) => key + 1)}>
          Refresh
        </button>
      </div>
      <div class="file-tree-scroll">
        <FileTree
          root={dir}
          includeHidden={includeHidden}
          refreshKey={refreshKey}
          selectedPath={open}
          onOpen={(path: string, _entry: DirectoryEntryWire) => setOpen(path)}
        />
      </div>
      {open && label && (
        <FileViewer
          path={open}
          label={label}
          refreshKey={refreshKey}
          onClose={() => setOpen(null)}
        />
      )}
    </div>
  );
}
