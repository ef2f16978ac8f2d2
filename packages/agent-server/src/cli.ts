// TODO(helper): CLI
